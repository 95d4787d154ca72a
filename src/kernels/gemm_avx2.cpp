// The AVX2 + FMA micro-kernels: a 6 x 16 float tile (6 x 8 for double), twelve
// ymm accumulators, and a narrow 12 x 8 one (12 x 4), the register tile of
// micro_kernel_x86.hpp over 256-bit lanes.
// Compiled for AVX2 + FMA by function attributes and a target push and pop only,
// so the rest of the library stays baseline x86-64; called only where the
// processor reports both.
#if defined(__x86_64__)

#include "kernels/micro_kernel.hpp"
#include <topos/core/tensor.hpp>

#include <concepts>
#include <cstddef>
#include <immintrin.h>

// The register tile, compiled for AVX2 + FMA (its includes above are not).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#include "kernels/micro_kernel_x86.hpp"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace topos::detail {
namespace {

struct FloatLanes {
    using Element = float;
    using Vector = __m256;
    static constexpr std::size_t width = 8;

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector zero() {
        return _mm256_setzero_ps();
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector load(const float* p) {
        return _mm256_loadu_ps(p);
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector splat(const float* p) {
        return _mm256_broadcast_ss(p);
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline void store(float* p, Vector v) {
        _mm256_storeu_ps(p, v);
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector fma(Vector a,
                                                                             Vector b,
                                                                             Vector c) {
        return _mm256_fmadd_ps(a, b, c);
    }
};

struct DoubleLanes {
    using Element = double;
    using Vector = __m256d;
    static constexpr std::size_t width = 4;

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector zero() {
        return _mm256_setzero_pd();
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector load(const double* p) {
        return _mm256_loadu_pd(p);
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector splat(const double* p) {
        return _mm256_broadcast_sd(p);
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline void store(double* p, Vector v) {
        _mm256_storeu_pd(p, v);
    }

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline Vector fma(Vector a,
                                                                             Vector b,
                                                                             Vector c) {
        return _mm256_fmadd_pd(a, b, c);
    }
};

constexpr std::size_t tile_rows = 6;
constexpr std::size_t tile_vectors = 2;       // vectors across a tile row
constexpr std::size_t narrow_tile_rows = 12;  // one vector across

}  // namespace

template <>
MicroKernel<float> avx2_micro_kernel<float>() {
    return tile_kernel<FloatLanes, tile_rows, tile_vectors>();
}

template <>
MicroKernel<double> avx2_micro_kernel<double>() {
    return tile_kernel<DoubleLanes, tile_rows, tile_vectors>();
}

template <>
MicroKernel<float> avx2_narrow_micro_kernel<float>() {
    return tile_kernel<FloatLanes, narrow_tile_rows, 1>();
}

template <>
MicroKernel<double> avx2_narrow_micro_kernel<double>() {
    return tile_kernel<DoubleLanes, narrow_tile_rows, 1>();
}

}  // namespace topos::detail

#endif
