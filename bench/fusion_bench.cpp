// Fused convolution and pooling against the unfused plan, and against
// LibTorch's conv2d / max_pool2d when LibTorch is found (Debian's
// libtorch-dev), all in one program so `--benchmark_enable_random_interleaving`
// interleaves them. Sizes: the seeds' example ([1, 1, 6, 6], 2 filters 3x3,
// relu, 2x2 pool) and the two layers of a LeNet-sized batch ([32, 1, 28, 28]
// -> 8 channels -> pool -> 16 channels -> pool, 3x3 filters with padding 1).
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

#if defined(TOPOS_BENCH_WITH_TORCH)
#include <torch/torch.h>
#endif

namespace {

using topos::Shape;
using topos::Tape;

struct Layer {
    std::size_t batch, channels, size, filters, kernel, padding;
};

constexpr Layer seeds{1, 1, 6, 2, 3, 0};
constexpr Layer lenet_first{32, 1, 28, 8, 3, 1};
constexpr Layer lenet_second{32, 8, 14, 16, 3, 1};

// conv2d + relu, then a 2x2 max pool, as separately declared values.
struct Recorded {
    topos::Network<float> network;
    topos::Symbol convolved;
    topos::Symbol pooled;
};

Recorded record(const Layer& l) {
    Tape<float> tape;
    auto image =
        tape.input(topos::init::normal(1, 1.0)(Shape{l.batch, l.channels, l.size, l.size}));
    auto filters = tape.parameter(
        topos::init::normal(2, 0.3)(Shape{l.filters, l.channels, l.kernel, l.kernel}));
    auto bias = tape.parameter(topos::init::normal(3, 0.1)(Shape{l.filters}));
    auto convolved = topos::conv2d(image, filters, bias, 1, l.padding).relu();
    auto pooled = topos::max_pool(convolved, 2, 2);
    return {std::move(tape).into_network(), convolved, pooled};
}

enum class Part {
    Convolution,
    Pooling,
    Both
};

void topos_plan(benchmark::State& state, Layer layer, Part part, bool fused) {
    const Recorded recorded = record(layer);
    const topos::Symbol root = part == Part::Convolution ? recorded.convolved : recorded.pooled;
    const auto parameters = recorded.network.parameters();
    const auto entry =
        recorded.network.entry({root}).numerics(topos::Numerics::Exact).elect_patterns(fused);
    if (part == Part::Pooling) {
        // The pooling alone: its input fed, so the convolution is not scheduled.
        Tape<float> tape;
        const Shape shape = recorded.network.nodes()[recorded.convolved.index()].shape();
        auto input = tape.input(topos::init::normal(4, 1.0)(shape));
        const topos::Symbol pooled = topos::max_pool(input, 2, 2);
        const auto network = std::move(tape).into_network();
        const auto plan = network.entry({pooled}).elect_patterns(fused).lower();
        for (auto _ : state) {
            benchmark::DoNotOptimize(plan.forward(network.parameters()).of(pooled).data().data());
        }
        return;
    }
    const auto plan = entry.lower();
    for (auto _ : state) {
        benchmark::DoNotOptimize(plan.forward(parameters).of(root).data().data());
    }
}

#if defined(TOPOS_BENCH_WITH_TORCH)
void libtorch(benchmark::State& state, Layer l, Part part) {
    torch::NoGradGuard no_gradients;
    at::set_num_threads(1);
    const auto image = torch::randn({long(l.batch), long(l.channels), long(l.size), long(l.size)});
    const auto filters =
        torch::randn({long(l.filters), long(l.channels), long(l.kernel), long(l.kernel)});
    const auto bias = torch::randn({long(l.filters)});
    const auto convolved = torch::relu(torch::conv2d(image, filters, bias, 1, long(l.padding)));
    for (auto _ : state) {
        if (part == Part::Pooling) {
            benchmark::DoNotOptimize(torch::max_pool2d(convolved, 2, 2).data_ptr());
            continue;
        }
        auto result = torch::relu(torch::conv2d(image, filters, bias, 1, long(l.padding)));
        if (part == Part::Both) {
            result = torch::max_pool2d(result, 2, 2);
        }
        benchmark::DoNotOptimize(result.data_ptr());
    }
}
#endif

void register_layer(const char* name, Layer layer, Part part) {
    const std::string prefix = name;
    benchmark::RegisterBenchmark((prefix + "/topos_fused").c_str(), topos_plan, layer, part, true)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(
        (prefix + "/topos_unfused").c_str(), topos_plan, layer, part, false)
        ->Unit(benchmark::kMicrosecond);
#if defined(TOPOS_BENCH_WITH_TORCH)
    benchmark::RegisterBenchmark((prefix + "/libtorch").c_str(), libtorch, layer, part)
        ->Unit(benchmark::kMicrosecond);
#endif
}

}  // namespace

int main(int argc, char** argv) {
    register_layer("seeds_conv_relu_pool", seeds, Part::Both);
    register_layer("lenet1_conv_relu", lenet_first, Part::Convolution);
    register_layer("lenet1_pool", lenet_first, Part::Pooling);
    register_layer("lenet2_conv_relu", lenet_second, Part::Convolution);
    register_layer("lenet2_pool", lenet_second, Part::Pooling);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
