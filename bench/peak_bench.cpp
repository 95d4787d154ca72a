// The machine's arithmetic limit, which bench/compare divides the workloads'
// GFLOP/s by.
//
//   BM_FmaPeak<float>, BM_FmaPeak<double>
//       a loop of fused multiply-adds on registers only, no load or store:
//       twelve independent accumulators (more than the fma latency times the
//       fma units of any processor so far), on the widest vectors that
//       topos::isa() allows (what topos's own kernels run on: capped by
//       TOPOS_MAX_ISA), on 1 and 2 threads. GFLOP/s counts two per lane of
//       each fma, summed over the threads, by wall-clock time.
//
// The memory limit is bench/copy_bandwidth_bench's.
#include <topos/core/isa.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

constexpr std::size_t accumulators = 12;
constexpr std::int64_t fmas_per_call = std::int64_t{1} << 20;  // per accumulator

// Each loop returns a lane of every accumulator, so that none is dead. The
// fmas of a chain depend on each other and round, so no compiler folds them
// (the library's builds contract no a * b + c).
#if defined(__x86_64__)
[[gnu::target("avx512f")]] double avx512_loop(float) {
    __m512 acc[accumulators];
    for (__m512& value : acc) {
        value = _mm512_set1_ps(0.5F);
    }
    const __m512 multiplier = _mm512_set1_ps(0.999F);
    const __m512 addend = _mm512_set1_ps(0.5F);
    for (std::int64_t i = 0; i < fmas_per_call; ++i) {
        for (__m512& value : acc) {
            value = _mm512_fmadd_ps(value, multiplier, addend);
        }
    }
    double total = 0;
    for (const __m512 value : acc) {
        total += static_cast<double>(_mm512_cvtss_f32(value));
    }
    return total;
}

[[gnu::target("avx512f")]] double avx512_loop(double) {
    __m512d acc[accumulators];
    for (__m512d& value : acc) {
        value = _mm512_set1_pd(0.5);
    }
    const __m512d multiplier = _mm512_set1_pd(0.999);
    const __m512d addend = _mm512_set1_pd(0.5);
    for (std::int64_t i = 0; i < fmas_per_call; ++i) {
        for (__m512d& value : acc) {
            value = _mm512_fmadd_pd(value, multiplier, addend);
        }
    }
    double total = 0;
    for (const __m512d value : acc) {
        total += _mm512_cvtsd_f64(value);
    }
    return total;
}

[[gnu::target("avx2,fma")]] double avx2_loop(float) {
    __m256 acc[accumulators];
    for (__m256& value : acc) {
        value = _mm256_set1_ps(0.5F);
    }
    const __m256 multiplier = _mm256_set1_ps(0.999F);
    const __m256 addend = _mm256_set1_ps(0.5F);
    for (std::int64_t i = 0; i < fmas_per_call; ++i) {
        for (__m256& value : acc) {
            value = _mm256_fmadd_ps(value, multiplier, addend);
        }
    }
    double total = 0;
    for (const __m256 value : acc) {
        total += static_cast<double>(_mm256_cvtss_f32(value));
    }
    return total;
}

[[gnu::target("avx2,fma")]] double avx2_loop(double) {
    __m256d acc[accumulators];
    for (__m256d& value : acc) {
        value = _mm256_set1_pd(0.5);
    }
    const __m256d multiplier = _mm256_set1_pd(0.999);
    const __m256d addend = _mm256_set1_pd(0.5);
    for (std::int64_t i = 0; i < fmas_per_call; ++i) {
        for (__m256d& value : acc) {
            value = _mm256_fmadd_pd(value, multiplier, addend);
        }
    }
    double total = 0;
    for (const __m256d value : acc) {
        total += _mm256_cvtsd_f64(value);
    }
    return total;
}
#endif

template <class T>
double portable_loop() {
    std::array<T, accumulators> acc;
    acc.fill(T(0.5));
    const T multiplier = T(0.999);
    for (std::int64_t i = 0; i < fmas_per_call; ++i) {
        for (T& value : acc) {
            value = std::fma(value, multiplier, T(0.5));
        }
    }
    double total = 0;
    for (const T value : acc) {
        total += static_cast<double>(value);
    }
    return total;
}

// Lanes of T in the vectors the loop runs on, and that loop's name.
struct Loop {
    std::size_t lanes;
    const char* name;
};

template <class T>
Loop loop_for(topos::Isa isa) {
    switch (isa) {
        case topos::Isa::Avx512:
            return {64 / sizeof(T), "avx512 (zmm fma)"};
        case topos::Isa::Avx2:
            return {32 / sizeof(T), "avx2 (ymm fma)"};
        case topos::Isa::Portable:
            break;
    }
    return {1, "portable (std::fma)"};
}

template <class T>
double run_loop(topos::Isa isa) {
#if defined(__x86_64__)
    if (isa == topos::Isa::Avx512) {
        return avx512_loop(T{});
    }
    if (isa == topos::Isa::Avx2) {
        return avx2_loop(T{});
    }
#endif
    return portable_loop<T>();
}

template <class T>
void BM_FmaPeak(benchmark::State& state) {
    const topos::Isa isa = topos::isa();
    const Loop loop = loop_for<T>(isa);
    for (auto _ : state) {
        benchmark::DoNotOptimize(run_loop<T>(isa));
    }
    // Google Benchmark sums each thread's counters and multiplies by every
    // thread's iterations, so one thread's count is the whole run's.
    if (state.thread_index() == 0) {
        const double flops_per_call =
            2.0 * static_cast<double>(fmas_per_call * static_cast<std::int64_t>(accumulators) *
                                      static_cast<std::int64_t>(loop.lanes));
        state.counters["GFLOP/s"] = benchmark::Counter(
            flops_per_call * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
        state.SetLabel(loop.name);
    }
}

BENCHMARK(BM_FmaPeak<float>)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_FmaPeak<double>)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
