// The CUDA backend against the reference kernels, built with
// TOPOS_ENABLE_CUDA: W1 (square products, GFLOP/s) and W2 (an MLP training
// step, ms/step) of the design's benchmark list. Each iteration is a whole
// plan run as a user makes it, so the device figures include uploading the
// sources and downloading the declared values. Each benchmark first checks
// that the backend it names served the products, and stops with an error
// otherwise (on a machine without a device every CUDA figure is an error).
// tools/gpu-check.sh runs it.
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using topos::Numerics;
using topos::Shape;
using topos::Tensor;

template <class T>
Tensor<T> normal(std::uint64_t seed, double stddev, const Shape& shape) {
    const Tensor<T> values = topos::init::normal(seed, stddev)(shape);
    return values;
}

// Whether the plan's products were served by `backend`; says why not otherwise.
bool served_by(benchmark::State& state, const topos::Tally& tally, const std::string& backend) {
    if (tally.count("MatMul", backend) == 0) {
        state.SkipWithError(
            ("MatMul was not served by " + backend + ":\n" + tally.describe()).c_str());
        return false;
    }
    return true;
}

// W1: out = a b for square n x n operands.
template <class T>
void w1_gemm(benchmark::State& state, Numerics numerics, const std::string& backend) {
    const auto n = static_cast<std::size_t>(state.range(0));
    topos::Tape<T> tape;
    const auto product = tape.input(normal<T>(1, 1.0, Shape{n, n}))
                             .matmul(tape.parameter(normal<T>(2, 1.0, Shape{n, n})));
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({product}).numerics(numerics).lower();
    const auto parameters = network.parameters();
    const topos::Tally tally = topos::Backend::tallied([&] { plan.forward(parameters); });
    if (!served_by(state, tally, backend)) {
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(plan.forward(parameters).of(product).data().data());
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

// W2: Linear 784-512-512-10, tanh, batch 128, softmax cross-entropy; the
// gradients by tape.differentiate, one plan per step, then an SGD update.
void w2_mlp_step(benchmark::State& state,
                 Numerics numerics,
                 bool elect,
                 const std::string& backend) {
    topos::Tape<float> tape;
    const topos::Mlp<float> mlp(
        tape, {784, 512, 512, 10}, topos::Activation::Tanh, topos::init::xavier(3));
    const auto features = tape.input(normal<float>(4, 1.0, Shape{128, 784}));
    std::vector<float> labels(128);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        labels[i] = float(i % 10);
    }
    const auto classes = tape.indices(Tensor<float>(Shape{128}, labels));
    const auto loss = topos::cross_entropy(mlp.express(features), classes);
    const auto adjoints = tape.differentiate(loss, mlp.parameters());
    const auto network = std::move(tape).into_network();
    const auto step =
        network.entry(adjoints.roots()).numerics(numerics).elect_patterns(elect).lower();
    auto parameters = network.parameters();
    const topos::Tally tally = topos::Backend::tallied([&] { step.forward(parameters); });
    if (!served_by(state, tally, backend)) {
        return;
    }
    const Tensor<float> rate(0.01f);
    for (auto _ : state) {
        const auto run = step.forward(parameters);
        parameters =
            parameters.step(run.recorded_gradients(adjoints),
                            [&](const Tensor<float>& value, const Tensor<float>& gradient) {
                                return value - gradient * rate;
                            });
    }
    state.counters["loss"] = double(step.forward(parameters).of(loss).scalar());
}

void w1_gemm_f32(benchmark::State& state, Numerics numerics, const std::string& backend) {
    w1_gemm<float>(state, numerics, backend);
}

void w1_gemm_f64(benchmark::State& state, Numerics numerics, const std::string& backend) {
    w1_gemm<double>(state, numerics, backend);
}

void gemm_sizes(benchmark::internal::Benchmark* benchmark) {
    for (const int n : {256, 512, 1024, 2048}) {
        benchmark->Arg(n);
    }
    benchmark->Unit(benchmark::kMillisecond);
}

BENCHMARK_CAPTURE(w1_gemm_f32, cuda_fast, Numerics::Fast, "cuda")->Apply(gemm_sizes);
BENCHMARK_CAPTURE(w1_gemm_f64, cuda_fast, Numerics::Fast, "cuda")->Apply(gemm_sizes);
BENCHMARK_CAPTURE(w1_gemm_f32, reference_exact, Numerics::Exact, "reference")->Apply(gemm_sizes);
BENCHMARK_CAPTURE(w1_gemm_f64, reference_exact, Numerics::Exact, "reference")->Apply(gemm_sizes);
BENCHMARK_CAPTURE(w2_mlp_step, cuda_fast_unfused, Numerics::Fast, false, "cuda")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(w2_mlp_step, cuda_fast_elected, Numerics::Fast, true, "cuda")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(w2_mlp_step, reference_exact, Numerics::Exact, true, "reference")
    ->Unit(benchmark::kMillisecond);

}  // namespace
