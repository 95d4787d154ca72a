// An ensemble of three convolutional classifiers of handwritten digits: two
// 3x3 convolutions (padding 1) of 32 and 64 filters, each followed by
// BatchNorm, ReLU and 2x2 max pooling, then a Linear layer to 10 logits. Each
// member is trained with AdamW on a cosine schedule, on mini-batches of 50
// whose digits are randomly rotated, scaled and shifted a little, through a
// compiled plan, which serves the convolutions and poolings with fused
// kernels; it is evaluated through a second export that reads the BatchNorm
// running statistics as inputs. The ensemble averages the members' softmax.
#include "support/classifier.hpp"
#include "support/report.hpp"
#include <topos/topos.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

// See digits_mlp.cpp: the held-out digits are other people's handwriting.
constexpr double required_accuracy = 0.97;
constexpr std::size_t members = 3;
constexpr std::size_t first_channels = 32;
constexpr std::size_t second_channels = 64;
constexpr std::size_t features = second_channels * 2 * 2;  // after two poolings of 8 x 8

// Trains member `member` (its own initial parameters and batch order) and
// returns its test logits.
topos::Tensor<float> trained_member(std::size_t member,
                                    const gallery::Digits& training,
                                    const gallery::Digits& test,
                                    gallery::TrainingReport& report) {
    using namespace gallery;
    const std::uint64_t seed = 10 * member;
    const Recipe recipe{
        .batch = 50,
        .as_images = true,
        .jitter = Jitter{.largest_sine = 0.14, .largest_scale = 0.08, .largest_shift = 0.5}};

    topos::Tape<float> tape;
    const topos::Conv2d<float> conv1(
        tape,
        {.in_channels = 1, .out_channels = first_channels, .kernel = 3, .padding = 1},
        torch_default(seed + 1, 9));
    const topos::BatchNorm<float> norm1(tape, first_channels);
    const topos::Conv2d<float> conv2(
        tape,
        {.in_channels = first_channels, .out_channels = second_channels, .kernel = 3, .padding = 1},
        torch_default(seed + 2, first_channels * 9));
    const topos::BatchNorm<float> norm2(tape, second_channels);
    const topos::MaxPool2d<float> pool(2);
    const topos::Linear<float> classify(tape, features, 10, torch_default(seed + 3, features));
    const auto model = [&](const topos::Value<float>& images, auto& normalise) {
        const auto first = pool.express(normalise(norm1, conv1.express(images)).relu());
        const auto second = pool.express(normalise(norm2, conv2.express(first)).relu());
        return classify.express(second.reshape(topos::Shape{second.shape()[0], features}));
    };
    const auto parameters_to_train = topos::parameters_of(conv1, norm1, conv2, norm2, classify);
    const Classifier classifier = record_classifier(tape, model, parameters_to_train, recipe, test);
    if (member == 0) {
        std::cout << conv1.describe() << '\n'
                  << norm1.describe() << '\n'
                  << pool.describe() << '\n'
                  << conv2.describe() << '\n'
                  << norm2.describe() << '\n'
                  << pool.describe() << '\n'
                  << classify.describe() << "\n\n";
    }
    const Trained trained =
        train_classifier(classifier,
                         recipe,
                         {.epochs = 30, .learning_rate = 0.003, .shuffle_seed = seed + 7},
                         training);
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
