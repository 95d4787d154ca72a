// A digits classifier recorded once with two exports of one spec: a training
// graph over a batch (its loss differentiated on the tape) and an evaluation
// graph over the whole test set, both reading the same Parameter nodes. Each
// is lowered to a compiled plan; training runs the plan once per step and
// steps AdamW on a cosine schedule on the gradients it returns.
//
// A model's BatchNorm layers differ between the exports: the training graph
// normalises by each batch's own statistics, which the plan returns so that
// training can keep their running averages; the evaluation graph reads those
// running averages as inputs. The model records a layer with
// `normalise(layer, x)`, its layers in the same order in both exports.
#pragma once

#include "support/digits.hpp"
#include <topos/topos.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

namespace gallery {

// The shape of `count` digits as a model reads them: [count, 64] or [count, 1, 8, 8].
inline topos::Shape digits_shape(std::size_t count, bool as_images) {
    return as_images ? topos::Shape{count, 1, 8, 8} : topos::Shape{count, pixels_per_digit};
}

// PyTorch's default initialisation of Conv2d and Linear weights: uniform in
// +-1 / sqrt(fan_in), smaller than Kaiming's normal, which trained these
// models less well.
inline topos::init::Uniform torch_default(std::uint64_t seed, std::size_t fan_in) {
    const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
    return topos::init::uniform(seed, -bound, bound);
}

// One BatchNorm layer in the training graph: its batch statistics, observed.
struct BatchStatistics {
    const topos::BatchNorm<float>* layer;
    topos::Value<float> mean;
    topos::Value<float> variance;
    std::size_t count;  // elements per channel
};

struct NormaliseByBatch {
    std::vector<BatchStatistics> layers;

    topos::Value<float> operator()(const topos::BatchNorm<float>& layer,
                                   const topos::Value<float>& x) {
        const auto recorded = layer.training(x);
        layers.push_back(
            {&layer, recorded.mean, recorded.variance, topos::elements_per_channel(x.shape())});
        return recorded.output;
    }
};

struct NormaliseByRunningStatistics {
    topos::Tape<float>* tape;
    std::vector<topos::StatisticsInputs<float>> inputs;

    topos::Value<float> operator()(const topos::BatchNorm<float>& layer,
                                   const topos::Value<float>& x) {
        inputs.push_back(layer.statistics_inputs(*tape));
        return layer.inference(x, inputs.back());
    }
};

struct Classifier {
    topos::Network<float> network;
    topos::Adjoints<float> adjoints;  // the batch loss, then d loss / d each parameter
    topos::Symbol images;             // the training batch, an input
    topos::Symbol labels;             // its labels, an input of indices
    std::vector<BatchStatistics> batch_statistics;
    topos::Symbol test_logits;  // the evaluation graph's output over the test set
    std::vector<topos::StatisticsInputs<float>> running_statistics;  // its inputs
};

// The gallery's name for the library's affine jitter of the digits.
using Jitter = topos::data::AffineJitter;

struct Recipe {
    std::size_t batch;
    bool as_images;
    std::optional<Jitter> jitter;  // of the training digits, when set
    double pixel_noise = 0;        // the stddev of Gaussian noise added to each training pixel
    double label_smoothing = 0;    // of the training loss, as PyTorch's cross_entropy
};

// `model(x, normalise)` records the logits of x; `parameters` are what training updates.
template <class Model>
Classifier record_classifier(topos::Tape<float>& tape,
                             const Model& model,
                             const std::vector<topos::Value<float>>& parameters,
                             const Recipe& recipe,
                             const Digits& test) {
    auto images = tape.input(
        topos::Tensor<float>::filled(digits_shape(recipe.batch, recipe.as_images), 0.0f));
    auto labels = tape.indices(topos::Tensor<float>::filled(topos::Shape{recipe.batch}, 0.0f));
    NormaliseByBatch by_batch;
    auto loss = topos::cross_entropy(
        model(images, by_batch), labels, {.label_smoothing = recipe.label_smoothing});
    auto adjoints = tape.differentiate(loss, parameters);
    auto test_images =
        tape.input(topos::Tensor<float>(digits_shape(test.count(), recipe.as_images), test.pixels));
    NormaliseByRunningStatistics by_running{&tape, {}};
    auto test_logits = model(test_images, by_running);
    return {std::move(tape).into_network(),
            adjoints,
            images,
            labels,
            by_batch.layers,
            test_logits,
            by_running.inputs};
}

struct Schedule {
    std::size_t epochs;
    double learning_rate;  // the peak of a cosine decay to 0, without warm-up
    std::uint64_t shuffle_seed;
    double weight_decay = 0.01;
};

struct Trained {
    topos::Parameters<float> parameters;
    std::vector<topos::RunningStatistics<float>> running_statistics;  // one per BatchNorm layer
    std::vector<double> losses;                                       // one per step
};

// What a training step's plan returns: the loss, the gradients, the batch statistics.
inline std::vector<topos::Symbol> training_roots(const Classifier& classifier) {
    std::vector<topos::Symbol> roots = classifier.adjoints.roots();
    for (const BatchStatistics& layer : classifier.batch_statistics) {
        roots.push_back(layer.mean);
        roots.push_back(layer.variance);
    }
    return roots;
}

inline Batch training_batch(const Digits& training,
                            const std::vector<std::size_t>& order,
                            std::size_t first,
                            const Recipe& recipe,
                            topos::data::Generator& generator) {
    const topos::Shape shape = digits_shape(recipe.batch, recipe.as_images);
    Batch batch = batch_of(training, order, first, shape);
    std::vector<float> pixels(batch.images.data().begin(), batch.images.data().end());
    if (recipe.jitter) {
        topos::data::jitter_images<float>(pixels, 8, 8, *recipe.jitter, generator);
    }
    if (recipe.pixel_noise > 0) {
        topos::data::add_gaussian_noise<float>(pixels, recipe.pixel_noise, generator);
    }
    batch.images = topos::Tensor<float>(shape, pixels);
    return batch;
}

inline void update_running_statistics(const Classifier& classifier,
                                      const topos::Run<float>& run,
                                      Trained& trained) {
    for (std::size_t i = 0; i < classifier.batch_statistics.size(); ++i) {
        const BatchStatistics& layer = classifier.batch_statistics[i];
        trained.running_statistics[i] = layer.layer->update(
            trained.running_statistics[i], run.of(layer.mean), run.of(layer.variance), layer.count);
    }
}

inline Trained train_classifier(const Classifier& classifier,
                                const Recipe& recipe,
                                const Schedule& schedule,
                                const Digits& training) {
    const auto plan = classifier.network.entry(training_roots(classifier))
                          .numerics(topos::Numerics::Exact)
                          .lower();
    const topos::optim::AdamW optimizer(
        {.learning_rate = schedule.learning_rate, .weight_decay = schedule.weight_decay});
    const std::size_t per_epoch = training.count() / recipe.batch;
    const std::size_t steps = schedule.epochs * per_epoch;
    const topos::optim::WarmupCosine learning_rate(schedule.learning_rate, 0, steps);
    Trained trained{classifier.network.parameters(), {}, {}};
    for (const BatchStatistics& layer : classifier.batch_statistics) {
        trained.running_statistics.push_back(layer.layer->start());
    }
    auto state = optimizer.start(trained.parameters);
    topos::data::Generator generator(schedule.shuffle_seed);
    topos::data::Progress progress(steps, {.every = steps / 5});
    for (std::size_t epoch = 0; epoch < schedule.epochs; ++epoch) {
        const auto order = topos::data::shuffled(training.count(), generator);
        for (std::size_t b = 0; b < per_epoch; ++b) {
            const Batch batch =
                training_batch(training, order, b * recipe.batch, recipe, generator);
            const auto run = plan.forward(
                trained.parameters,
                {{classifier.images, batch.images}, {classifier.labels, batch.labels}});
            auto [next, next_state] = optimizer.step(trained.parameters,
                                                     run.recorded_gradients(classifier.adjoints),
                                                     state,
                                                     learning_rate(state.steps));
            trained.parameters = next;
            state = next_state;
            update_running_statistics(classifier, run, trained);
            progress.update(
                epoch * per_epoch + b, run.of(classifier.adjoints.target()).scalar(), recipe.batch);
        }
    }
    progress.finish();
    trained.losses = progress.losses();
    return trained;
}

// The test logits of a trained classifier through the evaluation plan.
inline topos::Tensor<float> test_logits(const Classifier& classifier, const Trained& trained) {
    const auto plan =
        classifier.network.entry({classifier.test_logits}).numerics(topos::Numerics::Exact).lower();
    std::vector<topos::Feed<float>> feeds;
    for (std::size_t i = 0; i < classifier.running_statistics.size(); ++i) {
        feeds.push_back(
            {classifier.running_statistics[i].mean, trained.running_statistics[i].mean});
        feeds.push_back(
            {classifier.running_statistics[i].variance, trained.running_statistics[i].variance});
    }
    return plan.forward(trained.parameters, feeds).of(classifier.test_logits);
}

// An ensemble's scores: the sum over its members of each test row's softmax.
class EnsembleScores {
public:
    void add(const topos::Tensor<float>& logits) {
        const std::size_t classes = logits.shape()[1];
        sums_.resize(logits.shape().elements(), 0.0f);
        for (std::size_t row = 0; row < logits.shape()[0]; ++row) {
            const auto scores = logits.data().subspan(row * classes, classes);
            const float largest = *std::max_element(scores.begin(), scores.end());
            double total = 0;
            for (const float score : scores) {
                total += std::exp(static_cast<double>(score - largest));
            }
            for (std::size_t c = 0; c < classes; ++c) {
                sums_[row * classes + c] +=
                    static_cast<float>(std::exp(static_cast<double>(scores[c] - largest)) / total);
            }
        }
        shape_ = logits.shape();
    }

    topos::Tensor<float> sums() const { return topos::Tensor<float>(shape_, sums_); }

private:
    topos::Shape shape_{0, 0};
    std::vector<float> sums_;
};

// The test accuracy of an ensemble: `test_logits_of(member)` trains member
// 0, 1, ... and returns its test logits; each member's accuracy is printed.
template <class Member>
double ensemble_accuracy(std::size_t members, const Member& test_logits_of, const Digits& test) {
    EnsembleScores ensemble;
    for (std::size_t member = 0; member < members; ++member) {
        const topos::Tensor<float> logits = test_logits_of(member);
        std::ostringstream line;
        line << std::fixed << std::setprecision(2) << "member " << member + 1
             << " test accuracy: " << accuracy(logits, test.labels) * 100 << "%\n";
        std::cout << line.str();
        ensemble.add(logits);
    }
    return accuracy(ensemble.sums(), test.labels);
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
