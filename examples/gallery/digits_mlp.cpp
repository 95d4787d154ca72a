// An ensemble of three MLP classifiers of handwritten digits: 64 pixels -> 512
// -> 256 -> 10 logits, each hidden Linear layer followed by BatchNorm and
// ReLU. Each member is trained with AdamW on a cosine schedule, on
// mini-batches of 50 whose digits are randomly rotated, scaled and shifted a
// little and given Gaussian pixel noise, against labels smoothed by 0.1,
// through a compiled plan, then evaluated on the 297 held-out digits
// through a second export of the same network, which reads the BatchNorm
// running statistics as inputs. The ensemble averages the members' softmax.
#include "support/classifier.hpp"
#include "support/report.hpp"
#include <topos/topos.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>

// The held-out digits are written by other people than the training ones: a
// 1-nearest-neighbour classifier reaches 94.6% on this split.
constexpr double required_accuracy = 0.96;
constexpr std::size_t members = 3;

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
        .as_images = false,
        .jitter = Jitter{.largest_sine = 0.14, .largest_scale = 0.08, .largest_shift = 0.5},
        .pixel_noise = 0.2,
        .label_smoothing = 0.1};

    topos::Tape<float> tape;
    const topos::Linear<float> hidden1(tape, 64, 512, torch_default(seed + 1, 64));
    const topos::BatchNorm<float> norm1(tape, 512);
    const topos::Linear<float> hidden2(tape, 512, 256, torch_default(seed + 2, 512));
    const topos::BatchNorm<float> norm2(tape, 256);
    const topos::Linear<float> classify(tape, 256, 10, torch_default(seed + 3, 256));
    const auto model = [&](const topos::Value<float>& pixels, auto& normalise) {
        const auto first = normalise(norm1, hidden1.express(pixels)).relu();
        const auto second = normalise(norm2, hidden2.express(first)).relu();
        return classify.express(second);
    };
    const auto parameters_to_train = topos::parameters_of(hidden1, norm1, hidden2, norm2, classify);
    const Classifier classifier = record_classifier(tape, model, parameters_to_train, recipe, test);
    if (member == 0) {
        std::cout << hidden1.describe() << '\n'
                  << norm1.describe() << '\n'
                  << hidden2.describe() << '\n'
                  << norm2.describe() << '\n'
                  << classify.describe() << "\n\n";
    }
    const Trained trained =
        train_classifier(classifier,
                         recipe,
                         {.epochs = 40, .learning_rate = 0.003, .shuffle_seed = seed + 7},
                         training);
    report.losses("member " + std::to_string(member + 1), trained.losses);
    if (member == 0) {
        report.add("Member 1's network", topos::show::card(classifier.network));
    }
    return test_logits(classifier, trained);
}

int main(int argc, char** argv) {
    using namespace gallery;
    TrainingReport report("The digits MLP", argc, argv);
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
