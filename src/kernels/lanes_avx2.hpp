// The AVX2 + FMA lanes: 256-bit float and double vectors (zero, load, splat,
// store, fma) that the x86 register tiles are written over. Each operation
// carries its own AVX2 + FMA target attribute, so the header needs no target
// push; call them only where the processor runs AVX2 + FMA.
#pragma once

#if defined(__x86_64__)

#include <cstddef>
#include <immintrin.h>

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

}  // namespace
}  // namespace topos::detail

#endif
