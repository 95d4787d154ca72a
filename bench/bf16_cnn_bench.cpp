// The digits CNN's training step (examples/gallery/support/digits_cnn.hpp's
// layers: two 3x3 convolutions of 32 and 64 filters, each with BatchNorm,
// ReLU and 2x2 max pooling, then a Linear layer to 10 logits; a batch of 50
// 8x8 images) as a Function's value_and_gradients under Numerics::Exact:
//  - float: every node in float;
//  - bf16_products: the convolutions and the Linear layer recorded under an
//    Autocast to bf16 (their operands and results rounded, the rest float);
//  - bf16_everywhere: MixedPrecision<float>, every node in bf16 over the
//    float master parameters.
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <optional>
#include <vector>

namespace {

using namespace topos;

constexpr std::size_t batch = 50;

struct DigitsCnn {
    Tape<float> tape;
    Conv2d<float> conv1{tape,
                        {.in_channels = 1, .out_channels = 32, .kernel = 3, .padding = 1},
                        init::uniform(1, -1.0 / 3, 1.0 / 3)};
    BatchNorm<float> norm1{tape, 32};
    Conv2d<float> conv2{tape,
                        {.in_channels = 32, .out_channels = 64, .kernel = 3, .padding = 1},
                        init::uniform(2, -1.0 / 17, 1.0 / 17)};
    BatchNorm<float> norm2{tape, 64};
    MaxPool2d<float> pool{2};
    Linear<float> classify{tape, 256, 10, init::uniform(3, -1.0 / 16, 1.0 / 16)};
    Network<float> model = std::move(tape).into_network();

    Function<float> loss(std::optional<ElementType> products) const {
        return Function<float>(
            model,
            [this, products](const Value<float>& images, const Value<float>& labels) {
                std::optional<Autocast> autocast;
                if (products) {
                    autocast.emplace(*products);
                }
                const auto first = pool.express(norm1.express(conv1.express(images)).relu());
                const auto second = pool.express(norm2.express(conv2.express(first)).relu());
                const auto logits = classify.express(second.reshape(Shape{batch, 256}));
                autocast.reset();
                return cross_entropy(logits, labels);
            },
            {Argument::Real, Argument::Indices});
    }
};

struct Batch {
    Tensor<float> images = init::normal(5, 1.0).make<float>(Shape{batch, 1, 8, 8});
    Tensor<float> labels = [] {
        std::vector<float> values(batch);
        for (std::size_t i = 0; i < batch; ++i) {
            values[i] = static_cast<float>(i % 10);
        }
        return Tensor<float>(Shape{batch}, values);
    }();
};

template <class Step>
void time_steps(benchmark::State& state, const Step& step) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(step());
    }
}

// A Function's step: in float, or with its products in `products`.
void function_step(benchmark::State& state, std::optional<ElementType> products) {
    const DigitsCnn cnn;
    const Batch data;
    const Function<float> loss = cnn.loss(products);
    const Parameters<float> parameters = cnn.model.parameters();
    time_steps(state,
               [&] { return loss.value_and_gradients(parameters, data.images, data.labels); });
}

void bf16_everywhere_step(benchmark::State& state) {
    const DigitsCnn cnn;
    const Batch data;
    const MixedPrecision<float> mixed(cnn.loss(std::nullopt));
    const Parameters<float> master = cnn.model.parameters();
    time_steps(state, [&] { return mixed.value_and_gradients(master, data.images, data.labels); });
}

}  // namespace

BENCHMARK_CAPTURE(function_step, float, std::nullopt)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(function_step, bf16_products, ElementType::BF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(bf16_everywhere_step)->Unit(benchmark::kMicrosecond);
