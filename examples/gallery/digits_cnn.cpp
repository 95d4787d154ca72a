// A convolutional classifier of handwritten digits: two 3x3 convolutions
// (padding 1) with ReLU and 2x2 max pooling, then a Linear layer to 10 logits,
// trained with Adam on mini-batches of 50 through a compiled plan. The plan
// serves the convolutions and poolings with fused kernels.
#include "support/classifier.hpp"
#include <topos/topos.hpp>

#include <iostream>

// See digits_mlp.cpp: the held-out digits are other people's handwriting.
constexpr double required_accuracy = 0.90;

int main() {
    using namespace gallery;
    namespace init = topos::init;
    const Digits training = training_digits();
    const Digits test = test_digits();
    const Recipe recipe{.batch = 50, .as_images = true};

    topos::Tape<float> tape;
    const topos::Conv2d<float> conv1(
        tape, {.in_channels = 1, .out_channels = 8, .kernel = 3, .padding = 1}, init::kaiming(1));
    const topos::Conv2d<float> conv2(
        tape, {.in_channels = 8, .out_channels = 16, .kernel = 3, .padding = 1}, init::kaiming(2));
    const topos::MaxPool2d<float> pool(2);
    const topos::Linear<float> classify(tape, 16 * 2 * 2, 10, init::xavier(3));
    const auto model = [&](const topos::Value<float>& images) {
        const auto features =
            pool.express(conv2.express(pool.express(conv1.express(images).relu())).relu());
        return classify.express(features.reshape(topos::Shape{features.shape()[0], 16 * 2 * 2}));
    };
    const auto parameters_to_train = topos::parameters_of<float>(conv1, conv2, classify);
    const Classifier classifier = record_classifier(tape, model, parameters_to_train, recipe, test);
    std::cout << conv1.describe() << '\n'
              << pool.describe() << '\n'
              << conv2.describe() << '\n'
              << pool.describe() << '\n'
              << classify.describe() << "\n\n";

    const auto parameters = train_classifier(
        classifier, recipe, {.epochs = 30, .learning_rate = 0.005, .shuffle_seed = 7}, training);
    return report_accuracy(test_accuracy(classifier, parameters, test), required_accuracy) ? 0 : 1;
}
