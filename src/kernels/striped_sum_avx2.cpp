// striped_sums_avx2: the 16 partials of the striped order in two float vectors
// or four double vectors, a short last block padded with -0 through masked
// loads, the folds in halves done across and within registers; runs of 4 floats
// are summed four at a time through a 4 x 4 transpose.
#include "kernels/striped_sum_avx2.hpp"

#if defined(TOPOS_HAS_AVX2_LOOPS)
#include <cstdint>
#include <immintrin.h>

namespace topos::detail {
namespace {

#define TOPOS_AVX2 __attribute__((target("avx2")))

// Lanes first .. first + 7 of a float block: x[lane] where lane < count, else -0.
TOPOS_AVX2 __m256 float_lanes_below(const float* x, std::size_t first, std::size_t count) {
    const __m256i lane = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                          _mm256_set1_epi32(static_cast<std::int32_t>(first)));
    const __m256i inside =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<std::int32_t>(count)), lane);
    return _mm256_blendv_ps(
        _mm256_set1_ps(-0.0f), _mm256_maskload_ps(x + first, inside), _mm256_castsi256_ps(inside));
}

TOPOS_AVX2 float striped_sum(const float* x, std::size_t count) {
    __m256 low = _mm256_set1_ps(-0.0f);  // partials 0..7
    __m256 high = low;                   // partials 8..15
    std::size_t first = 0;
    for (; first + 16 <= count; first += 16) {
        low = _mm256_add_ps(low, _mm256_loadu_ps(x + first));
        high = _mm256_add_ps(high, _mm256_loadu_ps(x + first + 8));
    }
    if (first < count) {  // a short last block; lanes past it would add -0, which changes nothing
        const float* block = x + first;
        const std::size_t left = count - first;
        low = _mm256_add_ps(low,
                            left >= 8 ? _mm256_loadu_ps(block) : float_lanes_below(block, 0, left));
        if (left > 8) {
            high = _mm256_add_ps(high, float_lanes_below(block, 8, left));
        }
    }
    const __m256 eight = _mm256_add_ps(low, high);
    const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
    const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
    const __m128 one = _mm_add_ss(two, _mm_shuffle_ps(two, two, 1));
    return _mm_cvtss_f32(one);
}

// Lanes first .. first + 3 of a double block: x[lane] where lane < count, else -0.
TOPOS_AVX2 __m256d double_lanes_below(const double* x, std::size_t first, std::size_t count) {
    const __m256i lane = _mm256_add_epi64(_mm256_setr_epi64x(0, 1, 2, 3),
                                          _mm256_set1_epi64x(static_cast<std::int64_t>(first)));
    const __m256i inside =
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<std::int64_t>(count)), lane);
    return _mm256_blendv_pd(
        _mm256_set1_pd(-0.0), _mm256_maskload_pd(x + first, inside), _mm256_castsi256_pd(inside));
}

TOPOS_AVX2 double striped_sum(const double* x, std::size_t count) {
    __m256d partials[4];  // partials 0..3, 4..7, 8..11, 12..15
    for (__m256d& four : partials) {
        four = _mm256_set1_pd(-0.0);
    }
    std::size_t first = 0;
    for (; first + 16 <= count; first += 16) {
        for (std::size_t q = 0; q < 4; ++q) {
            partials[q] = _mm256_add_pd(partials[q], _mm256_loadu_pd(x + first + 4 * q));
        }
    }
    if (first < count) {  // a short last block; lanes past it would add -0, which changes nothing
        const double* block = x + first;
        const std::size_t left = count - first;
        for (std::size_t q = 0; 4 * q < left; ++q) {
            const __m256d terms = 4 * q + 4 <= left ? _mm256_loadu_pd(block + 4 * q)
                                                    : double_lanes_below(block, 4 * q, left);
            partials[q] = _mm256_add_pd(partials[q], terms);
        }
    }
    const __m256d eight_low = _mm256_add_pd(partials[0], partials[2]);
    const __m256d eight_high = _mm256_add_pd(partials[1], partials[3]);
    const __m256d four = _mm256_add_pd(eight_low, eight_high);
    const __m128d two = _mm_add_pd(_mm256_castpd256_pd128(four), _mm256_extractf128_pd(four, 1));
    const __m128d one = _mm_add_sd(two, _mm_unpackhi_pd(two, two));
    return _mm_cvtsd_f64(one);
}

// Four runs of 4 floats at once, a run a lane: term a goes to partial a (-0 +
// term), and the partials fold in halves as striped_sum's do. Partials 4 ..
// 15 are -0, and the folds by 8 and 4 that add them leave every partial as it
// is (-0 + term is never +0 rounding down, and x + -0 is x otherwise), so
// they are left out. The runs, the rows of a 4 x 4 tile, are transposed so
// that partial a of every run is one vector.
TOPOS_AVX2 void four_runs_of_four(const float* x, float* out) {
    __m128 partial[4] = {
        _mm_loadu_ps(x), _mm_loadu_ps(x + 4), _mm_loadu_ps(x + 8), _mm_loadu_ps(x + 12)};
    _MM_TRANSPOSE4_PS(partial[0], partial[1], partial[2], partial[3]);
    const __m128 negative_zero = _mm_set1_ps(-0.0f);
    for (__m128& p : partial) {
        p = _mm_add_ps(negative_zero, p);
    }
    partial[0] = _mm_add_ps(partial[0], partial[2]);
    partial[1] = _mm_add_ps(partial[1], partial[3]);
    _mm_storeu_ps(out, _mm_add_ps(partial[0], partial[1]));
}

}  // namespace

TOPOS_AVX2 void striped_sums_avx2(const float* x,
                                  std::size_t runs,
                                  std::size_t extent,
                                  float* out) {
    std::size_t o = 0;
    if (extent == 4) {
        for (; o + 4 <= runs; o += 4) {
            four_runs_of_four(x + o * 4, out + o);
        }
    }
    for (; o < runs; ++o) {
        out[o] = striped_sum(x + o * extent, extent);
    }
}

TOPOS_AVX2 void striped_sums_avx2(const double* x,
                                  std::size_t runs,
                                  std::size_t extent,
                                  double* out) {
    for (std::size_t o = 0; o < runs; ++o) {
        out[o] = striped_sum(x + o * extent, extent);
    }
}

}  // namespace topos::detail
#endif
