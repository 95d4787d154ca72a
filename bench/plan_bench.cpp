// Plans against the interpreter: an MLP-sized graph forwarded both ways, the
// per-node cost of dispatch on a long chain of scalar nodes, and the cost of
// lowering chains of 10^4..10^6 nodes in each posture.
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

namespace {

using topos::Tape;
using topos::Tensor;

struct MlpGraph {
    topos::Network<float> network;
    topos::Symbol loss;
};

MlpGraph mlp_graph() {
    Tape<float> tape;
    topos::Mlp mlp(tape, {64, 256, 256, 10}, topos::Activation::Tanh, topos::init::xavier(3));
    auto predicted = mlp.express(tape.input(topos::init::normal(5, 1.0)(topos::Shape{32, 64})));
    const topos::Symbol loss = (predicted * predicted).sum();
    return {std::move(tape).into_network(), loss};
}

void mlp_network_forward(benchmark::State& state) {
    const MlpGraph graph = mlp_graph();
    const auto parameters = graph.network.parameters();
    for (auto _ : state) {
        benchmark::DoNotOptimize(graph.network.forward(parameters, {}).of(graph.loss).scalar());
    }
}

BENCHMARK(mlp_network_forward)->Unit(benchmark::kMicrosecond);

void mlp_plan_forward(benchmark::State& state) {
    const MlpGraph graph = mlp_graph();
    const auto parameters = graph.network.parameters();
    const auto plan = graph.network.entry({graph.loss}).numerics(topos::Numerics::Exact).lower();
    for (auto _ : state) {
        benchmark::DoNotOptimize(plan.forward(parameters, {}).of(graph.loss).scalar());
    }
}

BENCHMARK(mlp_plan_forward)->Unit(benchmark::kMicrosecond);

// A chain of `nodes` scalar additions: the time per node is the dispatch cost.
topos::Network<double> scalar_chain(std::size_t nodes, topos::Symbol& last) {
    Tape<double> tape;
    auto x = tape.input(1.0);
    auto y = x;
    for (std::size_t i = 0; i < nodes; ++i) {
        y = y + x;
    }
    last = y;
    return std::move(tape).into_network();
}

void dispatch_interpreter(benchmark::State& state) {
    topos::Symbol last;
    const auto network = scalar_chain(1000, last);
    const auto parameters = network.parameters();
    for (auto _ : state) {
        benchmark::DoNotOptimize(network.forward(parameters, {}).of(last).scalar());
    }
    state.counters["ns/node"] = benchmark::Counter(
        1000,
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert,
        benchmark::Counter::kIs1000);
}

BENCHMARK(dispatch_interpreter)->Unit(benchmark::kMicrosecond);

void dispatch_plan(benchmark::State& state) {
    topos::Symbol last;
    const auto network = scalar_chain(1000, last);
    const auto parameters = network.parameters();
    const auto plan = network.entry({last}).lower();
    for (auto _ : state) {
        benchmark::DoNotOptimize(plan.forward(parameters, {}).of(last).scalar());
    }
    state.counters["ns/node"] = benchmark::Counter(
        1000,
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert,
        benchmark::Counter::kIs1000);
}

BENCHMARK(dispatch_plan)->Unit(benchmark::kMicrosecond);

// The chain the lowering scales with: `nodes` tanh nodes after a scalar input.
struct TanhChain {
    topos::Network<double> network;
    topos::Symbol last;
};

TanhChain tanh_chain(std::size_t nodes) {
    Tape<double> tape;
    auto y = tape.input(0.5);
    for (std::size_t i = 0; i < nodes; ++i) {
        y = y.tanh();
    }
    const topos::Symbol last = y;
    return {std::move(tape).into_network(), last};
}

enum class Posture {
    Forward,
    Backward
};

// Lowering only: the chain is recorded once, outside the timed loop.
void BM_LowerChain(benchmark::State& state, Posture posture) {
    const TanhChain chain = tanh_chain(static_cast<std::size_t>(state.range(0)));
    auto entry = chain.network.entry({chain.last});
    if (posture == Posture::Backward) {
        entry = entry.backward();
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(entry.lower());
    }
    state.counters["ns/node"] = benchmark::Counter(
        static_cast<double>(state.range(0)),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert,
        benchmark::Counter::kIs1000);
}

BENCHMARK_CAPTURE(BM_LowerChain, forward, Posture::Forward)
    ->RangeMultiplier(10)
    ->Range(10'000, 1'000'000)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LowerChain, backward, Posture::Backward)
    ->RangeMultiplier(10)
    ->Range(10'000, 1'000'000)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
