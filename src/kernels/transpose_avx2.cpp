#include "kernels/transpose_avx2.hpp"

#if defined(TOPOS_HAS_AVX2_LOOPS)
#include <immintrin.h>

namespace topos::detail {

#define TOPOS_AVX __attribute__((target("avx")))

TOPOS_AVX void transpose_tile_avx2(const float* in,
                                   std::size_t in_stride,
                                   float* out,
                                   std::size_t out_stride) {
    __m256 row[8];
    for (std::size_t i = 0; i < 8; ++i) {
        row[i] = _mm256_loadu_ps(in + i * in_stride);
    }
    // Pairs of rows interleaved, then pairs of pairs, then the 128-bit halves.
    __m256 pair[8];
    for (std::size_t i = 0; i < 8; i += 2) {
        pair[i] = _mm256_unpacklo_ps(row[i], row[i + 1]);
        pair[i + 1] = _mm256_unpackhi_ps(row[i], row[i + 1]);
    }
    __m256 quad[8];
    for (std::size_t i = 0; i < 8; i += 4) {
        quad[i] = _mm256_shuffle_ps(pair[i], pair[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        quad[i + 1] = _mm256_shuffle_ps(pair[i], pair[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        quad[i + 2] = _mm256_shuffle_ps(pair[i + 1], pair[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        quad[i + 3] = _mm256_shuffle_ps(pair[i + 1], pair[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (std::size_t j = 0; j < 4; ++j) {
        _mm256_storeu_ps(out + j * out_stride, _mm256_permute2f128_ps(quad[j], quad[j + 4], 0x20));
        _mm256_storeu_ps(out + (j + 4) * out_stride,
                         _mm256_permute2f128_ps(quad[j], quad[j + 4], 0x31));
    }
}

TOPOS_AVX void transpose_tile_avx2(const double* in,
                                   std::size_t in_stride,
                                   double* out,
                                   std::size_t out_stride) {
    const __m256d r0 = _mm256_loadu_pd(in);
    const __m256d r1 = _mm256_loadu_pd(in + in_stride);
    const __m256d r2 = _mm256_loadu_pd(in + 2 * in_stride);
    const __m256d r3 = _mm256_loadu_pd(in + 3 * in_stride);
    const __m256d low01 = _mm256_unpacklo_pd(r0, r1);
    const __m256d high01 = _mm256_unpackhi_pd(r0, r1);
    const __m256d low23 = _mm256_unpacklo_pd(r2, r3);
    const __m256d high23 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(out, _mm256_permute2f128_pd(low01, low23, 0x20));
    _mm256_storeu_pd(out + out_stride, _mm256_permute2f128_pd(high01, high23, 0x20));
    _mm256_storeu_pd(out + 2 * out_stride, _mm256_permute2f128_pd(low01, low23, 0x31));
    _mm256_storeu_pd(out + 3 * out_stride, _mm256_permute2f128_pd(high01, high23, 0x31));
}

}  // namespace topos::detail
#endif
