// The LibTorch twins of bench/workloads.hpp, written as a PyTorch user writes
// them in C++: modules, autograd, torch::optim::SGD. Same shapes, same losses,
// the same labels; float32 throughout, but for G2's two bf16 variants.
#pragma once

#include <ATen/autocast_mode.h>
#include <cstdint>
#include <memory>
#include <torch/torch.h>

namespace libtorch_workloads {

class Trainer {
public:
    virtual ~Trainer() = default;
    virtual void step() = 0;
    virtual double loss() const = 0;
};

inline torch::Tensor class_labels(std::int64_t count, std::int64_t classes) {
    return (torch::arange(count, torch::kLong) * 7 + 3) % classes;
}

// A module, an input batch and a loss over the module's output, trained by
// `Optimizer` (torch::optim::SGD, Adam or AdamW) with `Options`.
template <class Module, class Loss, class Optimizer = torch::optim::SGD>
class ModuleTrainer final : public Trainer {
public:
    template <class Options>
    ModuleTrainer(Module module, torch::Tensor input, Loss loss, Options options)
        : module_(std::move(module)),
          input_(std::move(input)),
          loss_of_(std::move(loss)),
          optimizer_(module_->parameters(), options) {}

    void step() override {
        optimizer_.zero_grad();
        torch::Tensor loss = loss_of_(module_->forward(input_));
        loss.backward();
        optimizer_.step();
        loss_ = loss.item<double>();
    }

    double loss() const override { return loss_; }

private:
    Module module_;
    torch::Tensor input_;
    Loss loss_of_;
    Optimizer optimizer_;
    double loss_ = 0;
};

template <class Module, class Loss>
std::unique_ptr<Trainer> sgd_trainer(Module module, torch::Tensor input, Loss loss, double rate) {
    return std::make_unique<ModuleTrainer<Module, Loss>>(
        std::move(module), std::move(input), std::move(loss), torch::optim::SGDOptions(rate));
}

inline auto cross_entropy_against(torch::Tensor labels, double label_smoothing = 0) {
    return [labels, label_smoothing](const torch::Tensor& logits) {
        return torch::nn::functional::cross_entropy(
            logits,
            labels,
            torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(label_smoothing));
    };
}

// W2: Linear 784-512-512-10 with tanh, batch 128.
inline std::unique_ptr<Trainer> mlp_step() {
    torch::nn::Sequential mlp(torch::nn::Linear(784, 512),
                              torch::nn::Tanh(),
                              torch::nn::Linear(512, 512),
                              torch::nn::Tanh(),
                              torch::nn::Linear(512, 10));
    return sgd_trainer(
        mlp, torch::rand({128, 784}), cross_entropy_against(class_labels(128, 10)), 0.01);
}

// W3: (w x - y)^2 with one scalar parameter.
class ScalarTrainer final : public Trainer {
public:
    void step() override {
        if (w_.grad().defined()) {
            w_.mutable_grad().zero_();
        }
        auto error = w_ * x_ - y_;
        auto loss = error * error;
        loss.backward();
        {
            torch::NoGradGuard no_gradients;
            w_.sub_(w_.grad() * 0.02);
        }
        loss_ = loss.item<double>();
    }

    double loss() const override { return loss_; }

private:
    torch::Tensor w_ = torch::zeros({}, torch::requires_grad());
    torch::Tensor x_ = torch::full({}, 2.0f);
    torch::Tensor y_ = torch::full({}, 4.0f);
    double loss_ = 0;
};

inline std::unique_ptr<Trainer> scalar_step() {
    return std::make_unique<ScalarTrainer>();
}

// W4: conv 3x3 8 relu maxpool 2, conv 3x3 16 relu maxpool 2, linear 10.
inline std::unique_ptr<Trainer> cnn_step() {
    namespace nn = torch::nn;
    nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)),
                       nn::ReLU(),
                       nn::MaxPool2d(2),
                       nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)),
                       nn::ReLU(),
                       nn::MaxPool2d(2),
                       nn::Flatten(),
                       nn::Linear(16 * 7 * 7, 10));
    return sgd_trainer(
        cnn, torch::rand({32, 1, 28, 28}), cross_entropy_against(class_labels(32, 10)), 0.01);
}

// W5: a pre-norm transformer block, 4 heads of 32, MLP 512 with GELU, causal.
struct BlockImpl : torch::nn::Module {
    BlockImpl(std::int64_t width, std::int64_t heads)
        : heads(heads),
          norm1(
              register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))),
          qkv(register_module("qkv", torch::nn::Linear(width, 3 * width))),
          project(register_module("project", torch::nn::Linear(width, width))),
          norm2(
              register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))),
          up(register_module("up", torch::nn::Linear(width, 4 * width))),
          down(register_module("down", torch::nn::Linear(4 * width, width))) {}

    torch::Tensor forward(const torch::Tensor& x) {
        const auto batch = x.size(0), sequence = x.size(1), width = x.size(2);
        const auto head_width = width / heads;
        auto split =
            qkv(norm1(x)).view({batch, sequence, 3, heads, head_width}).permute({2, 0, 3, 1, 4});
        auto scores = torch::matmul(split[0], split[1].transpose(-2, -1)) /
                      std::sqrt(static_cast<double>(head_width));
        const auto future = torch::ones({sequence, sequence}, torch::kBool).triu(1);
        scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
        auto attended = torch::matmul(torch::softmax(scores, -1), split[2]);
        auto h = x + project(attended.transpose(1, 2).reshape({batch, sequence, width}));
        return h + down(torch::gelu(up(norm2(h))));
    }

    std::int64_t heads;
    torch::nn::LayerNorm norm1;
    torch::nn::Linear qkv, project;
    torch::nn::LayerNorm norm2;
    torch::nn::Linear up, down;
};

TORCH_MODULE(Block);

inline std::unique_ptr<Trainer> transformer_block_step(std::int64_t batch,
                                                       std::int64_t sequence,
                                                       std::int64_t width,
                                                       std::int64_t heads) {
    auto mean_square = [](const torch::Tensor& y) { return (y * y).mean(); };
    return sgd_trainer(
        Block(width, heads), torch::randn({batch, sequence, width}), mean_square, 0.01);
}

inline std::unique_ptr<Trainer> transformer_step() {
    return transformer_block_step(8, 64, 128, 4);
}

// W8: GPT-2 small's block, 12 heads of 64, MLP 3072, over [4, 256, 768].
inline std::unique_ptr<Trainer> gpt2_block_step() {
    return transformer_block_step(4, 256, 768, 12);
}

// W7's residual block, as torchvision's BasicBlock (but for the convolutions'
// bias, which topos's Conv2d has): conv 3x3, batch norm, relu, conv 3x3, batch
// norm, plus the input (through conv 1x1 and batch norm where the stride or the
// channels change), relu.
struct BasicBlockImpl : torch::nn::Module {
    BasicBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride)
        : conv1(register_module(
              "conv1",
              torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, 3)
                                    .stride(stride)
                                    .padding(1)))),
          norm1(register_module("norm1", torch::nn::BatchNorm2d(out_channels))),
          conv2(register_module(
              "conv2",
              torch::nn::Conv2d(
                  torch::nn::Conv2dOptions(out_channels, out_channels, 3).padding(1)))),
          norm2(register_module("norm2", torch::nn::BatchNorm2d(out_channels))) {
        if (stride != 1 || in_channels != out_channels) {
            shortcut = register_module(
                "shortcut",
                torch::nn::Sequential(
                    torch::nn::Conv2d(
                        torch::nn::Conv2dOptions(in_channels, out_channels, 1).stride(stride)),
                    torch::nn::BatchNorm2d(out_channels)));
        }
    }

    torch::Tensor forward(const torch::Tensor& x) {
        auto y = norm2(conv2(torch::relu(norm1(conv1(x)))));
        return torch::relu(y + (shortcut ? shortcut->forward(x) : x));
    }

    torch::nn::Conv2d conv1;
    torch::nn::BatchNorm2d norm1;
    torch::nn::Conv2d conv2;
    torch::nn::BatchNorm2d norm2;
    torch::nn::Sequential shortcut{nullptr};
};

TORCH_MODULE(BasicBlock);

// W7: ResNet-18's first two stages for CIFAR-10, batch 32 of [3, 32, 32].
struct ResnetStagesImpl : torch::nn::Module {
    ResnetStagesImpl()
        : stem(register_module("stem",
                               torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 3).padding(1)))),
          stem_norm(register_module("stem_norm", torch::nn::BatchNorm2d(64))),
          blocks(register_module("blocks",
                                 torch::nn::Sequential(BasicBlock(64, 64, 1),
                                                       BasicBlock(64, 64, 1),
                                                       BasicBlock(64, 128, 2),
                                                       BasicBlock(128, 128, 1)))),
          classify(register_module("classify", torch::nn::Linear(128, 10))) {}

    torch::Tensor forward(const torch::Tensor& images) {
        auto x = blocks->forward(torch::relu(stem_norm(stem(images))));
        return classify(x.mean({2, 3}));
    }

    torch::nn::Conv2d stem;
    torch::nn::BatchNorm2d stem_norm;
    torch::nn::Sequential blocks;
    torch::nn::Linear classify;
};

TORCH_MODULE(ResnetStages);

inline std::unique_ptr<Trainer> resnet_stages_step() {
    return sgd_trainer(ResnetStages(),
                       torch::rand({32, 3, 32, 32}),
                       cross_entropy_against(class_labels(32, 10)),
                       0.01);
}

// The gallery's steps (see bench/workloads.hpp), all with AdamW.
template <class Module, class Loss>
std::unique_ptr<Trainer> adamw_trainer(Module module, torch::Tensor input, Loss loss, double rate) {
    return std::make_unique<ModuleTrainer<Module, Loss, torch::optim::AdamW>>(
        std::move(module),
        std::move(input),
        std::move(loss),
        torch::optim::AdamWOptions(rate).weight_decay(0.01));
}

inline std::unique_ptr<Trainer> digits_mlp_step() {
    namespace nn = torch::nn;
    nn::Sequential mlp(nn::Linear(64, 512),
                       nn::BatchNorm1d(512),
                       nn::ReLU(),
                       nn::Linear(512, 256),
                       nn::BatchNorm1d(256),
                       nn::ReLU(),
                       nn::Linear(256, 10));
    return adamw_trainer(
        mlp, torch::rand({50, 64}), cross_entropy_against(class_labels(50, 10), 0.1), 0.003);
}

inline torch::nn::Sequential digits_cnn() {
    namespace nn = torch::nn;
    return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)),
                          nn::BatchNorm2d(32),
                          nn::ReLU(),
                          nn::MaxPool2d(2),
                          nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)),
                          nn::BatchNorm2d(64),
                          nn::ReLU(),
                          nn::MaxPool2d(2),
                          nn::Flatten(),
                          nn::Linear(64 * 2 * 2, 10));
}

inline std::unique_ptr<Trainer> digits_cnn_step() {
    return adamw_trainer(digits_cnn(),
                         torch::rand({50, 1, 8, 8}),
                         cross_entropy_against(class_labels(50, 10)),
                         0.003);
}

// A module run under CPU autocast to bf16, as torch.autocast("cpu",
// dtype=torch.bfloat16) runs it: convolutions and products in bf16, the
// parameters and their optimizer in float; the output widened to float.
struct AutocastBf16Impl : torch::nn::Module {
    explicit AutocastBf16Impl(torch::nn::Sequential module)
        : inner(register_module("inner", std::move(module))) {}

    torch::Tensor forward(const torch::Tensor& x) {
        at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
        at::autocast::set_cpu_enabled(true);
        torch::Tensor y = inner->forward(x).to(torch::kFloat);
        at::autocast::set_cpu_enabled(false);
        at::autocast::clear_cache();
        return y;
    }

    torch::nn::Sequential inner;
};

TORCH_MODULE(AutocastBf16);

// G2 under autocast to bf16 (float master weights).
inline std::unique_ptr<Trainer> digits_cnn_autocast_bf16_step() {
    return adamw_trainer(AutocastBf16(digits_cnn()),
                         torch::rand({50, 1, 8, 8}),
                         cross_entropy_against(class_labels(50, 10)),
                         0.003);
}

// G2 with the module and the batch converted to bf16: every parameter,
// activation and optimizer state in bf16, the loss taken in float.
inline std::unique_ptr<Trainer> digits_cnn_bf16_step() {
    torch::nn::Sequential cnn = digits_cnn();
    cnn->to(torch::kBFloat16);
    const auto labels = class_labels(50, 10);
    return adamw_trainer(
        cnn,
        torch::rand({50, 1, 8, 8}).to(torch::kBFloat16),
        [labels](const torch::Tensor& logits) {
            return torch::nn::functional::cross_entropy(logits.to(torch::kFloat), labels);
        },
        0.003);
}

struct CharTransformerImpl : torch::nn::Module {
    static constexpr std::int64_t vocabulary = 27, context = 16, width = 32;

    CharTransformerImpl()
        : tokens(register_module("tokens", torch::nn::Embedding(vocabulary, width))),
          positions(register_module("positions", torch::nn::Embedding(context, width))),
          block(register_module("block", Block(width, 4))),
          norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))),
          unembed(register_module("unembed", torch::nn::Linear(width, vocabulary))) {}

    torch::Tensor forward(const torch::Tensor& windows) {
        auto x = tokens(windows) + positions(torch::arange(context, torch::kLong));
        return unembed(norm(block(x))).view({-1, vocabulary});
    }

    torch::nn::Embedding tokens, positions;
    Block block;
    torch::nn::LayerNorm norm;
    torch::nn::Linear unembed;
};

TORCH_MODULE(CharTransformer);

inline std::unique_ptr<Trainer> char_transformer_step() {
    const auto windows = class_labels(32 * 16, 27).view({32, 16});
    return adamw_trainer(
        CharTransformer(), windows, cross_entropy_against(class_labels(32 * 16, 27)), 3e-3);
}

}  // namespace libtorch_workloads
