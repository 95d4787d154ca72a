// The LibTorch twins of bench/workloads.hpp, written as a PyTorch user writes
// them in C++: modules, autograd, torch::optim::SGD. Same shapes, same losses,
// the same labels; float32 throughout.
#pragma once

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

// A module, an input batch and a loss over the module's output, trained by SGD.
template <class Module, class Loss>
class SgdTrainer final : public Trainer {
public:
    SgdTrainer(Module module, torch::Tensor input, Loss loss, double learning_rate)
        : module_(std::move(module)),
          input_(std::move(input)),
          loss_of_(std::move(loss)),
          optimizer_(module_->parameters(), torch::optim::SGDOptions(learning_rate)) {}

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
    torch::optim::SGD optimizer_;
    double loss_ = 0;
};

template <class Module, class Loss>
std::unique_ptr<Trainer> sgd_trainer(Module module, torch::Tensor input, Loss loss, double rate) {
    return std::make_unique<SgdTrainer<Module, Loss>>(
        std::move(module), std::move(input), std::move(loss), rate);
}

inline auto cross_entropy_against(torch::Tensor labels) {
    return [labels](const torch::Tensor& logits) {
        return torch::nn::functional::cross_entropy(logits, labels);
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

inline std::unique_ptr<Trainer> transformer_step() {
    auto mean_square = [](const torch::Tensor& y) { return (y * y).mean(); };
    return sgd_trainer(Block(128, 4), torch::randn({8, 64, 128}), mean_square, 0.01);
}

}  // namespace libtorch_workloads
