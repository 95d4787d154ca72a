// transpose_tile_avx2 and transpose_short_tile_avx2: an 8 x 8 float tile (or
// one of fewer rows, stored without writing past its end), a 4 x 4 double
// tile or an 8 x 8 bf16 tile transposed in registers by unpacks, shuffles and
// 128-bit permutes.
#include "kernels/transpose_avx2.hpp"

#if defined(TOPOS_HAS_AVX2_LOOPS)
#include <cstring>
#include <immintrin.h>

namespace topos::detail {

#define TOPOS_AVX __attribute__((target("avx")))

namespace {

// The columns of eight rows of eight floats, by shuffles: pairs of rows
// interleaved, then pairs of pairs, then the 128-bit halves.
[[gnu::always_inline]] TOPOS_AVX inline void transpose_registers(const __m256 (&row)[8],
                                                                 __m256 (&column)[8]) {
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
        column[j] = _mm256_permute2f128_ps(quad[j], quad[j + 4], 0x20);
        column[j + 4] = _mm256_permute2f128_ps(quad[j], quad[j + 4], 0x31);
    }
}

}  // namespace

TOPOS_AVX void transpose_tile_avx2(const float* in,
                                   std::size_t in_stride,
                                   float* out,
                                   std::size_t out_stride) {
    __m256 row[8];
    for (std::size_t i = 0; i < 8; ++i) {
        row[i] = _mm256_loadu_ps(in + i * in_stride);
    }
    __m256 column[8];
    transpose_registers(row, column);
    for (std::size_t j = 0; j < 8; ++j) {
        _mm256_storeu_ps(out + j * out_stride, column[j]);
    }
}

TOPOS_AVX void transpose_short_tile_avx2(const float* in,
                                         std::size_t in_stride,
                                         std::size_t rows,
                                         float* out) {
    __m256 row[8];
    for (std::size_t i = 0; i < 8; ++i) {
        row[i] = i < rows ? _mm256_loadu_ps(in + i * in_stride) : _mm256_setzero_ps();
    }
    __m256 column[8];
    transpose_registers(row, column);
    // Whole vectors, each overwriting the lanes past `rows` of the one before,
    // while a vector ends inside the 8 x rows floats; the rest through a copy.
    std::size_t j = 0;
    for (; j < 8 && j * rows + 8 <= 8 * rows; ++j) {
        _mm256_storeu_ps(out + j * rows, column[j]);
    }
    for (; j < 8; ++j) {
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, column[j]);
        for (std::size_t i = 0; i < rows; ++i) {
            out[j * rows + i] = lanes[i];
        }
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

// Eight rows of eight 16-bit values, one 128-bit register each: rows
// interleaved by 16-bit pairs, then by 32-bit pairs of pairs, then by 64-bit
// halves, so that register j ends holding column j.
TOPOS_AVX void transpose_tile_avx2(const bf16* in,
                                   std::size_t in_stride,
                                   bf16* out,
                                   std::size_t out_stride) {
    __m128i row[8];
    for (std::size_t i = 0; i < 8; ++i) {
        std::memcpy(&row[i], in + i * in_stride, sizeof(__m128i));
    }
    __m128i pair[8];  // rows 2i, 2i + 1: columns 0-3, then 4-7
    for (std::size_t i = 0; i < 8; i += 2) {
        pair[i] = _mm_unpacklo_epi16(row[i], row[i + 1]);
        pair[i + 1] = _mm_unpackhi_epi16(row[i], row[i + 1]);
    }
    __m128i quad[8];  // rows 4i .. 4i + 3: columns 0-1, 2-3, 4-5, 6-7
    for (std::size_t i = 0; i < 8; i += 4) {
        quad[i] = _mm_unpacklo_epi32(pair[i], pair[i + 2]);
        quad[i + 1] = _mm_unpackhi_epi32(pair[i], pair[i + 2]);
        quad[i + 2] = _mm_unpacklo_epi32(pair[i + 1], pair[i + 3]);
        quad[i + 3] = _mm_unpackhi_epi32(pair[i + 1], pair[i + 3]);
    }
    for (std::size_t j = 0; j < 4; ++j) {
        const __m128i even = _mm_unpacklo_epi64(quad[j], quad[j + 4]);
        const __m128i odd = _mm_unpackhi_epi64(quad[j], quad[j + 4]);
        std::memcpy(static_cast<void*>(out + 2 * j * out_stride), &even, sizeof(__m128i));
        std::memcpy(static_cast<void*>(out + (2 * j + 1) * out_stride), &odd, sizeof(__m128i));
    }
}

}  // namespace topos::detail
#endif
