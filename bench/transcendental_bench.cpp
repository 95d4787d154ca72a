// The exact exp, tanh, sigmoid, erf, gelu, log and softplus per element on one
// thread, on each instruction set this processor runs: the scalar functions
// (portable) and their vector lanes (avx2, avx512), over 2^20 elements uniform
// in [-4, 4] (float and double; log over their magnitudes); and LogSoftmax's kernel over the same
// elements as rows of 1024, its exps on each instruction set. Counters: ns per
// element. LibTorch's vectorised functions on the same tensor are
// libtorch_transcendental_bench. The Fast numerics' float functions
// (fast_transcendental.hpp) are fast_float_*, LogSoftmax's rows with them
// included.
#include "kernels/fast_transcendental.hpp"
#include "kernels/transcendental.hpp"
#include "ops/log_sum_exp.hpp"
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
std::vector<T> uniform_inputs(bool magnitudes = false) {
    std::mt19937 random(2026);
    std::uniform_real_distribution<double> uniform(-4.0, 4.0);
    std::vector<T> x(elements);
    for (T& value : x) {
        const double drawn = uniform(random);
        value = static_cast<T>(magnitudes && drawn < 0 ? -drawn : drawn);
    }
    return x;
}

// A rate of (elements / 10^9) per second, inverted: nanoseconds per element.
void count_ns_per_element(benchmark::State& state) {
    state.counters["ns_per_element"] = benchmark::Counter(
        static_cast<double>(elements) * static_cast<double>(state.iterations()) / 1e9,
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// `map` (exact_map_on or fast_map_on) over the elements, each round.
template <class T, class Map>
void map_function(benchmark::State& state, ExactFunction f, Isa set, Map map) {
    const std::vector<T> x = uniform_inputs<T>(f == ExactFunction::Log);
    std::vector<T> out(elements);
    for (auto _ : state) {
        map(set, f, x.data(), out.data(), elements);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    count_ns_per_element(state);
}

template <class T>
void exact_function(benchmark::State& state, ExactFunction f, Isa set) {
    map_function<T>(state, f, set, topos::detail::exact_map_on<T>);
}

void fast_function(benchmark::State& state, ExactFunction f, Isa set) {
    map_function<float>(state, f, set, topos::detail::fast_map_on);
}

constexpr std::size_t row_length = 1024;

// LogSoftmax's kernel (ops/log_sum_exp.hpp) row by row on this thread, with
// `set` capping the instruction set of its exps: the exact functions, or the
// Fast lanes' (float only).
template <class T, class ExpAndLog = topos::detail::ExactExpAndLog>
void log_softmax_rows(benchmark::State& state, Isa set) {
    const Isa before = topos::isa();
    topos::set_max_isa(set);
    const ExpAndLog functions{};
    const std::vector<T> x = uniform_inputs<T>();
    std::vector<T> out(elements);
    const auto in_row = [](std::size_t a) { return a; };
    for (auto _ : state) {
        for (std::size_t row = 0; row < elements; row += row_length) {
            const T* terms = x.data() + row;
            const T normaliser =
                topos::detail::log_sum_exp_of(terms, in_row, row_length, functions);
            for (std::size_t a = 0; a < row_length; ++a) {
                out[row + a] = terms[a] - normaliser;
            }
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    topos::set_max_isa(before);
    count_ns_per_element(state);
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
            benchmark::RegisterBenchmark(("fast_float_" + suffix).c_str(), fast_function, f, set)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
        const std::string suffix = "log_softmax/" + std::string(topos::name_of(set));
        benchmark::RegisterBenchmark(("float_" + suffix).c_str(), log_softmax_rows<float>, set)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("double_" + suffix).c_str(), log_softmax_rows<double>, set)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("fast_float_" + suffix).c_str(),
                                     log_softmax_rows<float, topos::detail::FastExpAndLog>,
                                     set)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
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
