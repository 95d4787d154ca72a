// A digits classifier recorded once with two exports of one spec: a training
// graph over a batch (its loss differentiated on the tape) and an evaluation
// graph over the whole test set, both reading the same Parameter nodes. Each
// is lowered to a compiled plan; training runs the plan once per step and
// steps AdamW (Adam when the weight decay is 0) on the gradients it returns.
#pragma once

#include "support/digits.hpp"
#include "support/progress.hpp"
#include "support/shuffle.hpp"
#include <topos/topos.hpp>

#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

namespace gallery {

// The shape of `count` digits as a model reads them: [count, 64] or [count, 1, 8, 8].
inline topos::Shape digits_shape(std::size_t count, bool as_images) {
    return as_images ? topos::Shape{count, 1, 8, 8} : topos::Shape{count, pixels_per_digit};
}

struct Classifier {
    topos::Network<float> network;
    topos::Adjoints<float> adjoints;  // the batch loss, then d loss / d each parameter
    topos::Symbol images;             // the training batch, an input
    topos::Symbol labels;             // its labels, an input of indices
    topos::Symbol test_logits;        // the evaluation graph's output over the test set
};

struct Recipe {
    std::size_t batch;
    bool as_images;
};

// `model(x)` records the logits of x; `parameters` are what training updates.
template <class Model>
Classifier record_classifier(topos::Tape<float>& tape,
                             const Model& model,
                             const std::vector<topos::Value<float>>& parameters,
                             const Recipe& recipe,
                             const Digits& test) {
    auto images = tape.input(
        topos::Tensor<float>::filled(digits_shape(recipe.batch, recipe.as_images), 0.0f));
    auto labels = tape.indices(topos::Tensor<float>::filled(topos::Shape{recipe.batch}, 0.0f));
    auto loss = topos::cross_entropy(model(images), labels);
    auto adjoints = tape.differentiate(loss, parameters);
    auto test_images =
        tape.input(topos::Tensor<float>(digits_shape(test.count(), recipe.as_images), test.pixels));
    auto test_logits = model(test_images);
    return {std::move(tape).into_network(), adjoints, images, labels, test_logits};
}

struct Schedule {
    std::size_t epochs;
    double learning_rate;
    std::uint64_t shuffle_seed;
    double weight_decay = 0;
};

inline topos::Parameters<float> train_classifier(const Classifier& classifier,
                                                 const Recipe& recipe,
                                                 const Schedule& schedule,
                                                 const Digits& training) {
    const auto plan = classifier.network.entry(classifier.adjoints.roots())
                          .numerics(topos::Numerics::Exact)
                          .lower();
    const topos::optim::AdamW optimizer(
        {.learning_rate = schedule.learning_rate, .weight_decay = schedule.weight_decay});
    auto parameters = classifier.network.parameters();
    auto state = optimizer.start(parameters);
    const std::size_t per_epoch = training.count() / recipe.batch;
    Generator generator(schedule.shuffle_seed);
    Progress progress(schedule.epochs * per_epoch, per_epoch * 5);
    for (std::size_t epoch = 0; epoch < schedule.epochs; ++epoch) {
        const auto order = shuffled_order(training.count(), generator);
        for (std::size_t b = 0; b < per_epoch; ++b) {
            const Batch batch = batch_of(
                training, order, b * recipe.batch, digits_shape(recipe.batch, recipe.as_images));
            const auto run = plan.forward(
                parameters, {{classifier.images, batch.images}, {classifier.labels, batch.labels}});
            auto [next, next_state] =
                optimizer.step(parameters, run.recorded_gradients(classifier.adjoints), state);
            parameters = next;
            state = next_state;
            progress.update(
                epoch * per_epoch + b, run.of(classifier.adjoints.target()).scalar(), recipe.batch);
        }
    }
    report_time(progress.seconds());
    return parameters;
}

// The test accuracy of `parameters` through the evaluation plan.
inline double test_accuracy(const Classifier& classifier,
                            const topos::Parameters<float>& parameters,
                            const Digits& test) {
    const auto plan =
        classifier.network.entry({classifier.test_logits}).numerics(topos::Numerics::Exact).lower();
    return accuracy(plan.forward(parameters, {}).of(classifier.test_logits), test.labels);
}

// Prints the accuracy; false (and a message) when it is below `required`.
inline bool report_accuracy(double measured, double required) {
    std::ostringstream line;
    line << std::fixed << std::setprecision(2) << "test accuracy: " << measured * 100
         << "% of 297 digits (required: at least " << required * 100 << "%)\n";
    std::cout << line.str();
    if (measured < required) {
        std::cout << "BELOW THE REQUIRED ACCURACY\n";
        return false;
    }
    return true;
}

}  // namespace gallery
