// The whole-step workloads of BENCHMARKS.md (W2-W5) and the gallery's training
// steps, as a user writes them in topos: the model recorded once, its
// derivative recorded on the tape, one compiled plan per numerics, and per step
// one `plan.forward` and one optimizer step. bench/workloads_bench.cpp times
// them; bench/peak_memory.cpp runs W6 (200 steps of W2) for its resident peak.
// The LibTorch twins are in bench/libtorch_workloads.hpp.
#pragma once

#include <topos/topos.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace workloads {

// One training step, ready to repeat: `step()` runs the plan and applies the
// update, replacing the parameters (and the optimizer's state).
class Trainer {
public:
    virtual ~Trainer() = default;
    virtual void step() = 0;
    // The loss of the last step, so that a caller can check training works.
    virtual double loss() const = 0;
};

struct Feeds {
    std::vector<std::pair<topos::Symbol, topos::Tensor<float>>> values;
};

// A recorded network whose loss is differentiated with respect to its
// parameters, trained by plain SGD at `learning_rate` through one plan.
class SgdTrainer final : public Trainer {
public:
    SgdTrainer(topos::Network<float> network,
               topos::Adjoints<float> adjoints,
               Feeds feeds,
               topos::Numerics numerics,
               double learning_rate)
        : network_(std::move(network)),
          adjoints_(std::move(adjoints)),
          plan_(network_.entry(adjoints_.roots()).numerics(numerics).lower()),
          optimizer_({.learning_rate = learning_rate}),
          parameters_(network_.parameters()),
          state_(optimizer_.start(parameters_)) {
        for (auto& [symbol, value] : feeds.values) {
            feeds_.push_back({symbol, std::move(value)});
        }
    }

    void step() override {
        const auto run = plan_.forward(parameters_, feeds_);
        auto [next, next_state] =
            optimizer_.step(parameters_, run.recorded_gradients(adjoints_), state_);
        parameters_ = std::move(next);
        state_ = std::move(next_state);
        loss_ = run.of(adjoints_.target()).scalar();
    }

    double loss() const override { return loss_; }

private:
    topos::Network<float> network_;
    topos::Adjoints<float> adjoints_;
    topos::Plan<float> plan_;
    topos::optim::Sgd optimizer_;
    topos::Parameters<float> parameters_;
    topos::optim::SgdState<float> state_;
    std::vector<topos::Feed<float>> feeds_;
    double loss_ = 0;
};

inline topos::Tensor<float> class_labels(std::size_t count, std::size_t classes) {
    std::vector<float> labels(count);
    for (std::size_t i = 0; i < count; ++i) {
        labels[i] = static_cast<float>((i * 7 + 3) % classes);
    }
    return topos::Tensor<float>(topos::Shape{count}, labels);
}

// W2: Linear 784-512-512-10 with tanh, batch 128, softmax cross-entropy, SGD.
inline SgdTrainer mlp_step(topos::Numerics numerics) {
    constexpr std::size_t batch = 128;
    topos::Tape<float> tape;
    const topos::Mlp<float> mlp(
        tape, {784, 512, 512, 10}, topos::Activation::Tanh, topos::init::xavier(1));
    const auto images = tape.input(topos::init::uniform(2, 0.0, 1.0)(topos::Shape{batch, 784}));
    const auto labels = tape.indices(class_labels(batch, 10));
    const auto loss = topos::cross_entropy(mlp.express(images), labels);
    auto adjoints = tape.differentiate(loss, mlp.parameters());
    return SgdTrainer(std::move(tape).into_network(), std::move(adjoints), {}, numerics, 0.01);
}

// W3: the getting-started scalar graph (w x - y)^2, one sample per step.
inline SgdTrainer scalar_step(topos::Numerics numerics) {
    topos::Tape<float> tape;
    const auto w = tape.parameter(0.0f);
    const auto x = tape.input(0.0f);
    const auto y = tape.input(0.0f);
    const auto error = w * x - y;
    auto adjoints = tape.differentiate(error * error, {w});
    Feeds feeds;
    feeds.values.emplace_back(x, topos::Tensor<float>(2.0f));
    feeds.values.emplace_back(y, topos::Tensor<float>(4.0f));
    return SgdTrainer(
        std::move(tape).into_network(), std::move(adjoints), std::move(feeds), numerics, 0.02);
}

// W4: [32, 1, 28, 28] -> conv 3x3 8 (pad 1) relu maxpool 2 -> conv 3x3 16
// (pad 1) relu maxpool 2 -> linear 10, cross-entropy.
inline SgdTrainer cnn_step(topos::Numerics numerics) {
    constexpr std::size_t batch = 32;
    namespace init = topos::init;
    topos::Tape<float> tape;
    const topos::Conv2d<float> conv1(
        tape, {.in_channels = 1, .out_channels = 8, .kernel = 3, .padding = 1}, init::kaiming(1));
    const topos::Conv2d<float> conv2(
        tape, {.in_channels = 8, .out_channels = 16, .kernel = 3, .padding = 1}, init::kaiming(2));
    const topos::MaxPool2d<float> pool(2);
    const topos::Linear<float> classify(tape, 16 * 7 * 7, 10, init::xavier(3));
    const auto images = tape.input(init::uniform(4, 0.0, 1.0)(topos::Shape{batch, 1, 28, 28}));
    const auto labels = tape.indices(class_labels(batch, 10));
    const auto features =
        pool.express(conv2.express(pool.express(conv1.express(images).relu())).relu());
    const auto logits = classify.express(features.reshape(topos::Shape{batch, 16 * 7 * 7}));
    auto adjoints = tape.differentiate(topos::cross_entropy(logits, labels),
                                       topos::parameters_of<float>(conv1, conv2, classify));
    return SgdTrainer(std::move(tape).into_network(), std::move(adjoints), {}, numerics, 0.01);
}

// W5: a pre-norm transformer block (4 heads, width 128, MLP 512, causal) over
// [8, 64, 128]; the loss is the mean square of its output.
inline SgdTrainer transformer_step(topos::Numerics numerics) {
    constexpr std::size_t batch = 8, sequence = 64, width = 128, heads = 4;
    topos::Tape<float> tape;
    const topos::TransformerBlock<float> block(
        tape, width, heads, 4 * width, topos::init::xavier(1));
    const auto x = tape.input(topos::init::normal(2, 1.0)(topos::Shape{batch, sequence, width}));
    const auto y = block.express(x);
    const auto loss = (y * y).mean();
    auto adjoints = tape.differentiate(loss, block.parameters());
    return SgdTrainer(std::move(tape).into_network(), std::move(adjoints), {}, numerics, 0.01);
}

}  // namespace workloads
