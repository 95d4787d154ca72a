// The AVX2 + FMA micro-kernels: a 6 x 16 float tile (6 x 8 for double), twelve
// ymm accumulators, each lane one output element taking its k terms in order
// with vfmadd (one rounding, as std::fma). Compiled for AVX2 + FMA by function
// attributes only, so the rest of the library stays baseline x86-64; called
// only where the processor reports both.
#if defined(__x86_64__)

#include "kernels/micro_kernel.hpp"

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

constexpr std::size_t tile_rows = 6;
constexpr std::size_t tile_vectors = 2;  // vectors across a tile row

template <class Lanes>
[[gnu::target("avx2,fma")]] void tile(std::size_t depth,
                                      const typename Lanes::Element* a,
                                      const typename Lanes::Element* b,
                                      typename Lanes::Element* c,
                                      std::size_t c_row_stride,
                                      bool accumulate) {
    using Vector = typename Lanes::Vector;
    constexpr std::size_t width = Lanes::width;
    Vector sum[tile_rows][tile_vectors];
#pragma GCC unroll 16
    for (std::size_t r = 0; r < tile_rows; ++r) {
        _mm_prefetch(reinterpret_cast<const char*>(c + r * c_row_stride), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(c + r * c_row_stride + tile_vectors * width - 1),
                     _MM_HINT_T0);
    }
#pragma GCC unroll 16
    for (std::size_t r = 0; r < tile_rows; ++r) {
#pragma GCC unroll 4
        for (std::size_t v = 0; v < tile_vectors; ++v) {
            sum[r][v] = accumulate ? Lanes::load(c + r * c_row_stride + v * width) : Lanes::zero();
        }
    }
#pragma GCC unroll 4
    for (std::size_t p = 0; p < depth; ++p) {
        Vector b_row[tile_vectors];
#pragma GCC unroll 4
        for (std::size_t v = 0; v < tile_vectors; ++v) {
            b_row[v] = Lanes::load(b + v * width);
        }
#pragma GCC unroll 16
        for (std::size_t r = 0; r < tile_rows; ++r) {
            const Vector a_element = Lanes::splat(a + r);
#pragma GCC unroll 4
            for (std::size_t v = 0; v < tile_vectors; ++v) {
                sum[r][v] = Lanes::fma(a_element, b_row[v], sum[r][v]);
            }
        }
        a += tile_rows;
        b += tile_vectors * width;
    }
#pragma GCC unroll 16
    for (std::size_t r = 0; r < tile_rows; ++r) {
#pragma GCC unroll 4
        for (std::size_t v = 0; v < tile_vectors; ++v) {
            Lanes::store(c + r * c_row_stride + v * width, sum[r][v]);
        }
    }
}

}  // namespace

template <>
MicroKernel<float> avx2_micro_kernel<float>() {
    return {tile<FloatLanes>, tile_rows, tile_vectors * FloatLanes::width, 256, 120, 4096};
}

template <>
MicroKernel<double> avx2_micro_kernel<double>() {
    return {tile<DoubleLanes>, tile_rows, tile_vectors * DoubleLanes::width, 256, 96, 2048};
}

}  // namespace topos::detail

#endif
