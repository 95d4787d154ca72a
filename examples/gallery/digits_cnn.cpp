// An ensemble of three convolutional classifiers of handwritten digits: two
// 3x3 convolutions (padding 1) of 32 and 64 filters, each followed by
// BatchNorm, ReLU and 2x2 max pooling, then a Linear layer to 10 logits. Each
// member is trained with AdamW on a cosine schedule, on mini-batches of 50
// whose digits are randomly rotated, scaled and shifted a little, through a
// compiled plan, which serves the convolutions and poolings with fused
// kernels; it is evaluated through a second export that reads the BatchNorm
// running statistics as inputs. The ensemble averages the members' softmax.
#include "support/digits_cnn.hpp"

#include "support/classifier.hpp"
#include "support/report.hpp"
#include <topos/topos.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>

// See digits_mlp.cpp: the held-out digits are other people's handwriting.
constexpr double required_accuracy = 0.97;
constexpr std::size_t members = 3;

// Trains member `member` (its own initial parameters and batch order) and
// returns its test logits.
topos::Tensor<float> trained_member(std::size_t member,
                                    const gallery::Digits& training,
                                    const gallery::Digits& test,
                                    gallery::TrainingReport& report) {
    using namespace gallery;
    const std::uint64_t seed = 10 * member;
    const Recipe recipe = digits_cnn_recipe();
    DigitsCnn cnn(seed);
    const Classifier classifier = cnn.record(recipe, test);
    if (member == 0) {
        cnn.describe(std::cout);
    }
    const Trained trained =
        train_classifier(classifier, recipe, digits_cnn_schedule(seed + 7), training);
    report.losses("member " + std::to_string(member + 1), trained.losses);
    if (member == 0) {
        report.add("Member 1's network", topos::show::card(classifier.network));
    }
    return test_logits(classifier, trained);
}

int main(int argc, char** argv) {
    using namespace gallery;
    TrainingReport report("The digits CNN", argc, argv);
    const Digits training = training_digits();
    const Digits test = test_digits();
    const auto member = [&](std::size_t member) {
        return trained_member(member, training, test, report);
    };
    const double measured = ensemble_accuracy(members, member, test);
    const bool reached = report_accuracy(measured, required_accuracy);
    report.finish();
    return reached ? 0 : 1;
}
