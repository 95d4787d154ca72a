// W1 of docs/performance.md: square matrix products, n = 256 to 2048, float and
// double, 1 and 2 threads, in GFLOP/s (2 n^3 flops per product). topos runs its
// exact GEMM on buffers allocated once (as a BLAS call does) and as a user runs
// it, through a compiled plan of a recorded MatMul; OpenBLAS runs cblas_?gemm
// where the build found it. bench/compare runs these side by side. bf16
// products (n = 1024 and 2048) run the exact bf16 GEMM and the Fast AVX-512
// BF16 dot product (labelled with what ran).
#include "kernels/gemm.hpp"
#include "kernels/gemm_bf16.hpp"
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>
#if defined(TOPOS_BENCH_OPENBLAS)
#include <cblas.h>
#endif

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace {

using topos::Element;

template <Element T>
std::vector<T> random_matrix(std::size_t n, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<T> uniform(T{-1}, T{1});
    std::vector<T> values(n * n);
    for (T& value : values) {
        value = uniform(generator);
    }
    return values;
}

void count_flops(benchmark::State& state, std::size_t n) {
    const double flops = 2.0 * double(n) * double(n) * double(n);
    state.counters["GFLOP/s"] = benchmark::Counter(
        flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

template <Element T>
void topos_exact(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    topos::set_threads(static_cast<std::size_t>(state.range(1)));
    const std::vector<T> a = random_matrix<T>(n, 1);
    const std::vector<T> b = random_matrix<T>(n, 2);
    std::vector<T> c(n * n);
    const auto stride = static_cast<std::ptrdiff_t>(n);
    for (auto _ : state) {
        topos::detail::gemm<T>({1, n, n, n},
                               {a.data(), stride, 1, 0},
                               {b.data(), stride, 1, 0},
                               {c.data(), stride, 0});
        benchmark::ClobberMemory();
    }
    count_flops(state, n);
}

template <Element T>
void topos_plan(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    topos::set_threads(static_cast<std::size_t>(state.range(1)));
    auto [network, product] = topos::Tape<T>::record([n](topos::Tape<T>& tape) {
        auto a = tape.parameter(topos::Tensor<T>({n, n}, random_matrix<T>(n, 1)));
        auto b = tape.parameter(topos::Tensor<T>({n, n}, random_matrix<T>(n, 2)));
        return topos::detach(a.matmul(b));
    });
    const auto parameters = network.parameters();
    const topos::Plan<T> plan = network.entry({product}).lower();
    for (auto _ : state) {
        benchmark::DoNotOptimize(plan.forward(parameters, {}).of(product).data().data());
    }
    count_flops(state, n);
}

std::vector<topos::bf16> random_bf16_matrix(std::size_t n, unsigned seed) {
    const std::vector<float> values = random_matrix<float>(n, seed);
    return {values.begin(), values.end()};
}

using Bf16Gemm = void (*)(topos::detail::GemmExtents,
                          topos::detail::MatrixView<topos::bf16>,
                          topos::detail::MatrixView<topos::bf16>,
                          topos::detail::MatrixTarget<topos::bf16>);

void bf16_product(benchmark::State& state, Bf16Gemm gemm, const std::string& label) {
    const auto n = static_cast<std::size_t>(state.range(0));
    topos::set_threads(static_cast<std::size_t>(state.range(1)));
    const std::vector<topos::bf16> a = random_bf16_matrix(n, 1);
    const std::vector<topos::bf16> b = random_bf16_matrix(n, 2);
    std::vector<topos::bf16> c(n * n);
    const auto stride = static_cast<std::ptrdiff_t>(n);
    for (auto _ : state) {
        gemm({1, n, n, n},
             {a.data(), stride, 1, 0},
             {b.data(), stride, 1, 0},
             {c.data(), stride, 0});
        benchmark::ClobberMemory();
    }
    count_flops(state, n);
    state.SetLabel(label);
}

void topos_bf16_exact(benchmark::State& state) {
    bf16_product(
        state, topos::detail::gemm_bf16, "float tiles " + std::string(name_of(topos::isa())));
}

void topos_bf16_fast(benchmark::State& state) {
    bf16_product(state,
                 topos::detail::gemm_bf16_dot,
                 topos::detail::runs_avx512_bf16() ? "vdpbf16ps" : "exact (no AVX512_BF16 here)");
}

#if defined(TOPOS_BENCH_OPENBLAS)
void blas_product(std::size_t n, const float* a, const float* b, float* c) {
    const auto size = static_cast<int>(n);
    cblas_sgemm(CblasRowMajor,
                CblasNoTrans,
                CblasNoTrans,
                size,
                size,
                size,
                1.0f,
                a,
                size,
                b,
                size,
                0.0f,
                c,
                size);
}

void blas_product(std::size_t n, const double* a, const double* b, double* c) {
    const auto size = static_cast<int>(n);
    cblas_dgemm(CblasRowMajor,
                CblasNoTrans,
                CblasNoTrans,
                size,
                size,
                size,
                1.0,
                a,
                size,
                b,
                size,
                0.0,
                c,
                size);
}

template <Element T>
void openblas(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    openblas_set_num_threads(static_cast<int>(state.range(1)));
    const std::vector<T> a = random_matrix<T>(n, 1);
    const std::vector<T> b = random_matrix<T>(n, 2);
    std::vector<T> c(n * n);
    for (auto _ : state) {
        blas_product(n, a.data(), b.data(), c.data());
        benchmark::ClobberMemory();
    }
    count_flops(state, n);
    state.SetLabel(openblas_get_corename());
}
#endif

void square_sizes(benchmark::internal::Benchmark* benchmark) {
    for (const int n : {256, 512, 1024, 2048}) {
        for (const int threads : {1, 2}) {
            benchmark->Args({n, threads});
        }
    }
    benchmark->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

void large_square_sizes(benchmark::internal::Benchmark* benchmark) {
    for (const int n : {1024, 2048}) {
        for (const int threads : {1, 2}) {
            benchmark->Args({n, threads});
        }
    }
    benchmark->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(topos_exact<float>)->Apply(square_sizes);
BENCHMARK(topos_bf16_exact)->Apply(large_square_sizes);
BENCHMARK(topos_bf16_fast)->Apply(large_square_sizes);
BENCHMARK(topos_exact<double>)->Apply(square_sizes);
BENCHMARK(topos_plan<float>)->Apply(square_sizes);
BENCHMARK(topos_plan<double>)->Apply(square_sizes);
#if defined(TOPOS_BENCH_OPENBLAS)
BENCHMARK(openblas<float>)->Apply(square_sizes);
BENCHMARK(openblas<double>)->Apply(square_sizes);
#endif

}  // namespace
