// The foundation's speed baseline: recording, the interpreter and the reverse
// scan on the getting-started scalar graph and on a matmul + tanh + sum graph.
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

namespace {

using topos::Tape;
using topos::Tensor;

void record_scalar_graph(benchmark::State& state) {
    for (auto _ : state) {
        Tape<double> tape;
        auto w = tape.parameter(0.5);
        auto x = tape.input(2.0);
        auto y = tape.input(4.0);
        auto error = w * x - y;
        auto loss = error * error;
        benchmark::DoNotOptimize(loss.index());
    }
}

BENCHMARK(record_scalar_graph);

void scalar_graph_forward_backward(benchmark::State& state) {
    auto [network, w, x, y, loss] = Tape<double>::record([](Tape<double>& tape) {
        auto w = tape.parameter(0.5);
        auto x = tape.input(2.0);
        auto y = tape.input(4.0);
        auto error = w * x - y;
        return topos::detach(w, x, y, error * error);
    });
    const auto parameters = network.parameters();
    for (auto _ : state) {
        auto run = network.forward(parameters, {{x, 2.0}, {y, 4.0}});
        auto gradients = run.backward(loss);
        benchmark::DoNotOptimize(gradients.of(w).scalar());
    }
}

BENCHMARK(scalar_graph_forward_backward);

void matmul_tanh_sum(benchmark::State& state) {
    auto [network, weights, loss] = Tape<float>::record([](Tape<float>& tape) {
        auto weights = tape.parameter(topos::init::xavier(1)(topos::Shape{256, 256}));
        auto batch = tape.input(topos::init::normal(2, 1.0)(topos::Shape{64, 256}));
        return topos::detach(weights, batch.matmul(weights).tanh().sum());
    });
    const auto parameters = network.parameters();
    for (auto _ : state) {
        auto run = network.forward(parameters, {});
        auto gradients = run.backward(loss);
        benchmark::DoNotOptimize(gradients.of(weights).data().data());
    }
    state.counters["GFLOP/s"] = benchmark::Counter(3.0 * 2 * 64 * 256 * 256,
                                                   benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
}

BENCHMARK(matmul_tanh_sum)->Unit(benchmark::kMillisecond);

}  // namespace
