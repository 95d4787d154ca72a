// The exact exp, tanh, sigmoid, erf and gelu per element on one thread, on each
// instruction set this processor runs: the scalar functions (portable) and
// their vector lanes (avx2, avx512), over 2^20 elements uniform in [-4, 4]
// (float and double). Counters: ns per element. LibTorch's vectorised
// functions on the same tensor are libtorch_transcendental_bench.
#include "kernels/transcendental.hpp"
#include <topos/core/isa.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace {

using topos::Isa;
using topos::detail::ExactFunction;

constexpr std::size_t elements = std::size_t{1} << 20;

template <class T>
std::vector<T> uniform_inputs() {
    std::mt19937 random(2026);
    std::uniform_real_distribution<double> uniform(-4.0, 4.0);
    std::vector<T> x(elements);
    for (T& value : x) {
        value = static_cast<T>(uniform(random));
    }
    return x;
}

template <class T>
void exact_function(benchmark::State& state, ExactFunction f, Isa set) {
    const std::vector<T> x = uniform_inputs<T>();
    std::vector<T> out(elements);
    for (auto _ : state) {
        topos::detail::exact_map_on(set, f, x.data(), out.data(), elements);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    // A rate of (elements / 10^9) per second, inverted: nanoseconds per element.
    state.counters["ns_per_element"] = benchmark::Counter(
        static_cast<double>(elements) * static_cast<double>(state.iterations()) / 1e9,
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void register_all() {
    const std::pair<const char*, ExactFunction> functions[] = {
        {"exp", ExactFunction::Exp},
        {"tanh", ExactFunction::Tanh},
        {"sigmoid", ExactFunction::Sigmoid},
        {"erf", ExactFunction::Erf},
        {"gelu", ExactFunction::Gelu},
        {"log", ExactFunction::Log},
        {"softplus", ExactFunction::Softplus}};
    for (const Isa set : topos::supported_isas()) {
        for (const auto& [name, f] : functions) {
            const std::string suffix = std::string(name) + "/" + std::string(topos::name_of(set));
            benchmark::RegisterBenchmark(("float_" + suffix).c_str(), exact_function<float>, f, set)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
            benchmark::RegisterBenchmark(
                ("double_" + suffix).c_str(), exact_function<double>, f, set)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
