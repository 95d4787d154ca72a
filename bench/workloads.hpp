// The whole-step workloads W2-W5, W7 and W8 of docs/performance.md and the
// gallery's training steps, as a user writes them in topos: the model recorded once, its
// derivative recorded on the tape, one compiled plan per numerics, and per step
// one `plan.forward_into` (the last step's run given up) and one optimizer
// step in place. bench/workloads_bench.cpp times them, and with --peak-memory
// runs W6 (200 steps of W2) for its resident peak.
// The LibTorch twins are in bench/libtorch_workloads.hpp.
#pragma once

#include "flops.hpp"
#include <topos/topos.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace workloads {

// One training step, ready to repeat: `step()` runs the plan and applies the
// update over the parameters (and the optimizer's state), in place.
class Trainer {
public:
    virtual ~Trainer() = default;
    virtual void step() = 0;
    // The loss of the last step, so that a caller can check training works.
    virtual double loss() const = 0;
    // The plan each step runs.
    virtual const topos::Plan<float>& plan() const = 0;
    // The floating-point operations of a step's products (flops.hpp).
    virtual double product_flops() const = 0;
};

struct Feeds {
    std::vector<std::pair<topos::Symbol, topos::Tensor<float>>> values;
};

// A recorded network whose loss is differentiated with respect to its
// parameters, trained through one plan by `Optimizer` (topos::optim::Sgd,
// Adam or AdamW), whose state it carries from step to step.
template <class Optimizer>
class PlanTrainer final : public Trainer {
public:
    PlanTrainer(topos::Network<float> network,
                topos::Adjoints<float> adjoints,
                Feeds feeds,
                topos::Numerics numerics,
                Optimizer optimizer,
                double product_flops)
        : network_(std::move(network)),
          adjoints_(std::move(adjoints)),
          plan_(network_.entry(adjoints_.roots()).numerics(numerics).lower()),
          optimizer_(std::move(optimizer)),
          parameters_(network_.parameters()),
          state_(optimizer_.start(parameters_)),
          product_flops_(product_flops) {
        for (auto& [symbol, value] : feeds.values) {
            feeds_.push_back({symbol, std::move(value)});
        }
    }

    void step() override {
        if (run_) {
            plan_.forward_into(*run_, parameters_, feeds_);
        } else {
            run_ = plan_.forward(parameters_, feeds_);
        }
        optimizer_.step_in_place(parameters_, run_->recorded_gradients(adjoints_), state_);
        loss_ = run_->of(adjoints_.target()).scalar();
    }

    double loss() const override { return loss_; }

    const topos::Plan<float>& plan() const override { return plan_; }

    double product_flops() const override { return product_flops_; }

private:
    using State = decltype(std::declval<const Optimizer&>().start(
        std::declval<const topos::Parameters<float>&>()));

    topos::Network<float> network_;
    topos::Adjoints<float> adjoints_;
    topos::Plan<float> plan_;
    Optimizer optimizer_;
    topos::Parameters<float> parameters_;
    State state_;
    std::vector<topos::Feed<float>> feeds_;
    std::optional<topos::Run<float>> run_;  // the last step's, given up to the next
    double product_flops_;
    double loss_ = 0;
};

using SgdTrainer = PlanTrainer<topos::optim::Sgd>;
using AdamTrainer = PlanTrainer<topos::optim::Adam>;
using AdamWTrainer = PlanTrainer<topos::optim::AdamW>;

inline topos::optim::Sgd sgd(double learning_rate) {
    return topos::optim::Sgd({.learning_rate = learning_rate});
}

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
    const double forward = flops::linear_layers(batch, {784, 512, 512, 10});
    return SgdTrainer(std::move(tape).into_network(),
                      std::move(adjoints),
                      {},
                      numerics,
                      sgd(0.01),
                      flops::training_step(forward));
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
    return SgdTrainer(std::move(tape).into_network(),
                      std::move(adjoints),
                      std::move(feeds),
                      numerics,
                      sgd(0.02),
                      0.0);  // no products
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
    const double forward = flops::convolution(batch, 1, 8, 3, 28, 28) +
                           flops::convolution(batch, 8, 16, 3, 14, 14) +
                           flops::product(batch, 16 * 7 * 7, 10);
    return SgdTrainer(std::move(tape).into_network(),
                      std::move(adjoints),
                      {},
                      numerics,
                      sgd(0.01),
                      flops::training_step(forward));
}

// A pre-norm transformer block (causal, a GELU MLP four times its width) over
// [batch, sequence, width]; the loss is the mean square of its output.
inline SgdTrainer transformer_block_step(topos::Numerics numerics,
                                         std::size_t batch,
                                         std::size_t sequence,
                                         std::size_t width,
                                         std::size_t heads) {
    topos::Tape<float> tape;
    const topos::TransformerBlock<float> block(
        tape, width, heads, 4 * width, topos::init::xavier(1));
    const auto x = tape.input(topos::init::normal(2, 1.0)(topos::Shape{batch, sequence, width}));
    const auto y = block.express(x);
    const auto loss = (y * y).mean();
    auto adjoints = tape.differentiate(loss, block.parameters());
    return SgdTrainer(
        std::move(tape).into_network(),
        std::move(adjoints),
        {},
        numerics,
        sgd(0.01),
        flops::training_step(flops::transformer_block(batch, sequence, width, 4 * width)));
}

// W5: 4 heads, width 128, MLP 512, over [8, 64, 128].
inline SgdTrainer transformer_step(topos::Numerics numerics) {
    return transformer_block_step(numerics, 8, 64, 128, 4);
}

// W8: GPT-2 small's block: 12 heads, width 768, MLP 3072, over [4, 256, 768].
inline SgdTrainer gpt2_block_step(topos::Numerics numerics) {
    return transformer_block_step(numerics, 4, 256, 768, 12);
}

// W7's residual block (ResNet's BasicBlock): two 3x3 convolutions, each
// followed by batch norm, relu between them; the input added back (through a
// 1x1 convolution with batch norm where the block changes the stride or the
// channels), then relu.
class BasicBlock {
public:
    BasicBlock(topos::Tape<float>& tape,
               std::size_t in_channels,
               std::size_t out_channels,
               std::size_t stride,
               std::uint64_t seed)
        : conv1_(tape,
                 {.in_channels = in_channels,
                  .out_channels = out_channels,
                  .kernel = 3,
                  .stride = stride,
                  .padding = 1},
                 topos::init::kaiming(seed)),
          norm1_(tape, out_channels),
          conv2_(tape,
                 {.in_channels = out_channels,
                  .out_channels = out_channels,
                  .kernel = 3,
                  .padding = 1},
                 topos::init::kaiming(seed + 1)),
          norm2_(tape, out_channels) {
        if (stride != 1 || in_channels != out_channels) {
            shortcut_.emplace(tape,
                              topos::Conv2dGeometry{.in_channels = in_channels,
                                                    .out_channels = out_channels,
                                                    .kernel = 1,
                                                    .stride = stride},
                              topos::init::kaiming(seed + 2));
            shortcut_norm_.emplace(tape, out_channels);
        }
    }

    topos::Value<float> express(const topos::Value<float>& x) const {
        const auto y = norm2_.express(conv2_.express(norm1_.express(conv1_.express(x)).relu()));
        const auto skip = shortcut_ ? shortcut_norm_->express(shortcut_->express(x)) : x;
        return (y + skip).relu();
    }

    std::vector<topos::Value<float>> parameters() const {
        auto all = topos::parameters_of<float>(conv1_, norm1_, conv2_, norm2_);
        if (shortcut_) {
            const auto more = topos::parameters_of<float>(*shortcut_, *shortcut_norm_);
            all.insert(all.end(), more.begin(), more.end());
        }
        return all;
    }

    // The forward products of a batch of `size` x `size` inputs.
    double forward_flops(std::size_t batch, std::size_t size) const {
        const auto& geometry = conv1_.geometry();
        const std::size_t in = geometry.in_channels, out = geometry.out_channels;
        const std::size_t made = (size - 1) / geometry.stride + 1;
        return flops::convolution(batch, in, out, 3, made, made) +
               flops::convolution(batch, out, out, 3, made, made) +
               (shortcut_ ? flops::convolution(batch, in, out, 1, made, made) : 0.0);
    }

private:
    topos::Conv2d<float> conv1_;
    topos::BatchNorm<float> norm1_;
    topos::Conv2d<float> conv2_;
    topos::BatchNorm<float> norm2_;
    std::optional<topos::Conv2d<float>> shortcut_;
    std::optional<topos::BatchNorm<float>> shortcut_norm_;
};

// W7: ResNet-18's first two stages for CIFAR-10, batch 32 of [3, 32, 32]: a
// 3x3 convolution to 64 channels with batch norm and relu, two blocks of 64
// channels, two of 128 (the first at stride 2), then the mean over the 16 x 16
// plane and a linear classifier of 10, cross-entropy, SGD.
inline SgdTrainer resnet_stages_step(topos::Numerics numerics) {
    constexpr std::size_t batch = 32, size = 32;
    namespace init = topos::init;
    topos::Tape<float> tape;
    const topos::Conv2d<float> stem(
        tape, {.in_channels = 3, .out_channels = 64, .kernel = 3, .padding = 1}, init::kaiming(1));
    const topos::BatchNorm<float> stem_norm(tape, 64);
    const std::vector<BasicBlock> blocks{BasicBlock(tape, 64, 64, 1, 10),
                                         BasicBlock(tape, 64, 64, 1, 20),
                                         BasicBlock(tape, 64, 128, 2, 30),
                                         BasicBlock(tape, 128, 128, 1, 40)};
    const topos::Linear<float> classify(tape, 128, 10, init::xavier(2));
    const auto images = tape.input(init::uniform(3, 0.0, 1.0)(topos::Shape{batch, 3, size, size}));
    const auto labels = tape.indices(class_labels(batch, 10));
    auto x = stem_norm.express(stem.express(images)).relu();
    double forward = flops::convolution(batch, 3, 64, 3, size, size);
    std::size_t plane = size;
    auto parameters = topos::parameters_of<float>(stem, stem_norm, classify);
    for (const BasicBlock& block : blocks) {
        x = block.express(x);
        forward += block.forward_flops(batch, plane);
        plane = x.shape()[2];
        const auto more = block.parameters();
        parameters.insert(parameters.end(), more.begin(), more.end());
    }
    const auto logits = classify.express(x.mean(topos::Axes{2, 3}));
    forward += flops::product(batch, 128, 10);
    auto adjoints = tape.differentiate(topos::cross_entropy(logits, labels), parameters);
    return SgdTrainer(std::move(tape).into_network(),
                      std::move(adjoints),
                      {},
                      numerics,
                      sgd(0.01),
                      flops::training_step(forward));
}

// The gallery's training steps (examples/gallery/), on random data of the
// same shapes: one member of the digits MLP and CNN ensembles (batches of 50
// 8x8 digits, BatchNorm in its training formula, AdamW; the MLP's loss with
// label smoothing) and the character
// transformer (32 windows of 16 characters, AdamW).
inline topos::optim::AdamW gallery_adamw(double learning_rate) {
    return topos::optim::AdamW({.learning_rate = learning_rate, .weight_decay = 0.01});
}

inline AdamWTrainer digits_mlp_step(topos::Numerics numerics) {
    constexpr std::size_t batch = 50;
    namespace init = topos::init;
    topos::Tape<float> tape;
    const topos::Linear<float> hidden1(tape, 64, 512, init::xavier(1));
    const topos::BatchNorm<float> norm1(tape, 512);
    const topos::Linear<float> hidden2(tape, 512, 256, init::xavier(2));
    const topos::BatchNorm<float> norm2(tape, 256);
    const topos::Linear<float> classify(tape, 256, 10, init::xavier(3));
    const auto pixels = tape.input(init::uniform(4, 0.0, 1.0)(topos::Shape{batch, 64}));
    const auto labels = tape.indices(class_labels(batch, 10));
    const auto first = norm1.express(hidden1.express(pixels)).relu();
    const auto second = norm2.express(hidden2.express(first)).relu();
    auto adjoints = tape.differentiate(
        topos::cross_entropy(classify.express(second), labels, {.label_smoothing = 0.1}),
        topos::parameters_of<float>(hidden1, norm1, hidden2, norm2, classify));
    const double forward = flops::linear_layers(batch, {64, 512, 256, 10});
    return AdamWTrainer(std::move(tape).into_network(),
                        std::move(adjoints),
                        {},
                        numerics,
                        gallery_adamw(0.003),
                        flops::training_step(forward));
}

inline AdamWTrainer digits_cnn_step(topos::Numerics numerics) {
    constexpr std::size_t batch = 50, channels1 = 32, channels2 = 64, features = channels2 * 2 * 2;
    namespace init = topos::init;
    topos::Tape<float> tape;
    const topos::Conv2d<float> conv1(
        tape,
        {.in_channels = 1, .out_channels = channels1, .kernel = 3, .padding = 1},
        init::kaiming(1));
    const topos::BatchNorm<float> norm1(tape, channels1);
    const topos::Conv2d<float> conv2(
        tape,
        {.in_channels = channels1, .out_channels = channels2, .kernel = 3, .padding = 1},
        init::kaiming(2));
    const topos::BatchNorm<float> norm2(tape, channels2);
    const topos::MaxPool2d<float> pool(2);
    const topos::Linear<float> classify(tape, features, 10, init::xavier(3));
    const auto images = tape.input(init::uniform(4, 0.0, 1.0)(topos::Shape{batch, 1, 8, 8}));
    const auto labels = tape.indices(class_labels(batch, 10));
    const auto first = pool.express(norm1.express(conv1.express(images)).relu());
    const auto second = pool.express(norm2.express(conv2.express(first)).relu());
    const auto logits = classify.express(second.reshape(topos::Shape{batch, features}));
    auto adjoints =
        tape.differentiate(topos::cross_entropy(logits, labels),
                           topos::parameters_of<float>(conv1, norm1, conv2, norm2, classify));
    const double forward = flops::convolution(batch, 1, channels1, 3, 8, 8) +
                           flops::convolution(batch, channels1, channels2, 3, 4, 4) +
                           flops::product(batch, features, 10);
    return AdamWTrainer(std::move(tape).into_network(),
                        std::move(adjoints),
                        {},
                        numerics,
                        gallery_adamw(0.003),
                        flops::training_step(forward));
}

inline topos::Tensor<float> token_indices(std::size_t count, std::size_t vocabulary) {
    return class_labels(count, vocabulary);
}

inline AdamWTrainer char_transformer_step(topos::Numerics numerics) {
    constexpr std::size_t vocabulary = 27, context = 16, width = 32, heads = 4, batch = 32;
    namespace init = topos::init;
    topos::Tape<float> tape;
    const topos::Embedding<float> tokens(tape, vocabulary, width, init::normal(1, 0.1));
    const topos::Embedding<float> positions(tape, context, width, init::normal(2, 0.1));
    const topos::TransformerBlock<float> block(tape, width, heads, 4 * width, init::xavier(10));
    const topos::LayerNorm<float> norm(tape, width);
    const topos::Linear<float> unembed(tape, width, vocabulary, init::xavier(3));
    const auto windows = tape.indices(topos::Tensor<float>(
        topos::Shape{batch, context}, token_indices(batch * context, vocabulary).data()));
    const auto places = tape.indices(token_indices(context, context));
    const auto targets = tape.indices(token_indices(batch * context, vocabulary));
    const auto x = block.express(tokens.express(windows) + positions.express(places));
    const auto logits =
        unembed.express(norm.express(x)).reshape(topos::Shape{batch * context, vocabulary});
    auto parameters = topos::parameters_of<float>(tokens, positions, norm, unembed);
    const auto more = block.parameters();
    parameters.insert(parameters.end(), more.begin(), more.end());
    auto adjoints = tape.differentiate(topos::cross_entropy(logits, targets), parameters);
    const double forward = flops::transformer_block(batch, context, width, 4 * width) +
                           flops::product(batch * context, width, vocabulary);
    return AdamWTrainer(std::move(tape).into_network(),
                        std::move(adjoints),
                        {},
                        numerics,
                        gallery_adamw(3e-3),
                        flops::training_step(forward));
}

}  // namespace workloads
