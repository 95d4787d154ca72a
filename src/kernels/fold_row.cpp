// The AVX-512 folds of window taps, a row of windows or a whole plane: a tap
// row's sums live in one register; each tap column is loaded once and moved to
// its positions by a lane permutation, then added under a mask, so nothing is
// stored and reloaded at a shifted address between the kw steps.
#include "kernels/fold_row.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TOPOS_FOLD_ROW_LANES 1
#endif

#include <cstdint>

namespace topos::detail {
namespace {

#if defined(TOPOS_FOLD_ROW_LANES)
#define TOPOS_AVX512 __attribute__((target("avx512f")))

// The first `count` lanes of 16 or 8.
TOPOS_AVX512 __mmask16 first_lanes(std::size_t count) {
    return static_cast<__mmask16>((std::uint32_t{1} << count) - 1);
}

// Tap row kh's sums along W, a position a lane: over kw descending, each tap
// column (taps + (kh * KW + kw) * stride) moved to positions kw .. kw +
// windows - 1 and added there, from +0.
TOPOS_AVX512 __m512 tap_row_sums(
    const FoldRowShape& s, const float* taps, std::size_t stride, std::size_t kh, __m512i lane) {
    const __mmask16 columns = first_lanes(s.windows);
    __m512 sums = _mm512_setzero_ps();
    for (std::size_t kw = s.kernel_columns; kw-- > 0;) {
        const float* column = taps + (kh * s.kernel_columns + kw) * stride;
        const auto reached = static_cast<__mmask16>(columns << kw);
        const __m512i from_column = _mm512_sub_epi32(lane, _mm512_set1_epi32(int(kw)));
        const __m512 shifted = _mm512_maskz_permutexvar_ps(
            reached, from_column, _mm512_maskz_loadu_ps(columns, column));
        sums = _mm512_mask_add_ps(sums, reached, sums, shifted);
    }
    return sums;
}

TOPOS_AVX512 __m512d tap_row_sums(
    const FoldRowShape& s, const double* taps, std::size_t stride, std::size_t kh, __m512i lane) {
    const auto columns = static_cast<__mmask8>(first_lanes(s.windows));
    __m512d sums = _mm512_setzero_pd();
    for (std::size_t kw = s.kernel_columns; kw-- > 0;) {
        const double* column = taps + (kh * s.kernel_columns + kw) * stride;
        const auto reached = static_cast<__mmask8>(columns << kw);
        const __m512i from_column =
            _mm512_sub_epi64(lane, _mm512_set1_epi64(static_cast<long long>(kw)));
        const __m512d shifted = _mm512_maskz_permutexvar_pd(
            reached, from_column, _mm512_maskz_loadu_pd(columns, column));
        sums = _mm512_mask_add_pd(sums, reached, sums, shifted);
    }
    return sums;
}

// float(bf16(value)) in each lane, with kernels/bf16_rows.hpp's bits: to
// nearest, ties to even, a NaN quieted (vcvtneps2bf16 would flush subnormals).
TOPOS_AVX512 __m512 rounded_to_bf16(__m512 values) {
    const __m512i bits = _mm512_castps_si512(values);
    // The zero-masked shift: g++ 12 takes the plain one's undefined pass-through
    // lanes for an uninitialised read (-Wmaybe-uninitialized).
    const __m512i odd = _mm512_and_si512(_mm512_maskz_srli_epi32(__mmask16{0xffff}, bits, 16),
                                         _mm512_set1_epi32(1));
    const __m512i nearest =
        _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), odd);
    const __mmask16 nan = _mm512_cmp_ps_mask(values, values, _CMP_UNORD_Q);
    const __m512i quiet = _mm512_or_si512(bits, _mm512_set1_epi32(0x00400000));
    const __m512i chosen = _mm512_mask_mov_epi32(nearest, nan, quiet);
    return _mm512_castsi512_ps(
        _mm512_and_si512(chosen, _mm512_set1_epi32(static_cast<int>(0xffff0000U))));
}

// Tap row kh's sums along W, rounded to bf16 where the kernel computes a bf16
// plan's values in float.
template <Interior interior>
TOPOS_AVX512 __m512 first_fold_sums(
    const FoldRowShape& s, const float* taps, std::size_t stride, std::size_t kh, __m512i lane) {
    const __m512 sums = tap_row_sums(s, taps, stride, kh, lane);
    if constexpr (interior == Interior::RoundedToBf16) {
        return rounded_to_bf16(sums);
    }
    return sums;
}

template <Interior interior>
TOPOS_AVX512 void fold_row_float(const FoldRowShape& s,
                                 const float* taps,
                                 std::size_t stride,
                                 float* const* rows) {
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __mmask16 image = first_lanes(s.width);
    const __m512i from_padded = _mm512_add_epi32(lane, _mm512_set1_epi32(int(s.pad_left)));
    for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
        const __m512 sums = first_fold_sums<interior>(s, taps, stride, kh, lane);
        if (float* row = rows[kh]) {
            const __m512 onto = _mm512_maskz_permutexvar_ps(image, from_padded, sums);
            _mm512_mask_storeu_ps(
                row, image, _mm512_add_ps(_mm512_maskz_loadu_ps(image, row), onto));
        }
    }
}

TOPOS_AVX512 void fold_row_double(const FoldRowShape& s,
                                  const double* taps,
                                  std::size_t stride,
                                  double* const* rows) {
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const auto image = static_cast<__mmask8>(first_lanes(s.width));
    const __m512i from_padded =
        _mm512_add_epi64(lane, _mm512_set1_epi64(static_cast<long long>(s.pad_left)));
    for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
        const __m512d sums = tap_row_sums(s, taps, stride, kh, lane);
        if (double* row = rows[kh]) {
            const __m512d onto = _mm512_maskz_permutexvar_pd(image, from_padded, sums);
            _mm512_mask_storeu_pd(
                row, image, _mm512_add_pd(_mm512_maskz_loadu_pd(image, row), onto));
        }
    }
}

// The image's rows while a plane is folded, a vector each: full-width loads
// and stores, which the processor forwards, where a masked store and the
// masked load after it would stall.
inline constexpr std::size_t most_plane_rows = 32;

template <Interior interior>
TOPOS_AVX512 void fold_plane_float(const FoldPlaneShape& s,
                                   const float* taps,
                                   std::size_t stride,
                                   float* out) {
    const FoldRowShape& r = s.row;
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __mmask16 image = first_lanes(r.width);
    const __m512i from_padded = _mm512_add_epi32(lane, _mm512_set1_epi32(int(r.pad_left)));
    alignas(64) float rows[most_plane_rows][16];
    for (std::size_t y = 0; y < s.image_rows; ++y) {
        _mm512_store_ps(rows[y], _mm512_setzero_ps());
    }
    for (std::size_t oh = 0; oh < s.rows; ++oh) {
        for (std::size_t kh = 0; kh < r.kernel_rows; ++kh) {
            const std::size_t y = oh + kh;
            if (y < s.pad_top || y - s.pad_top >= s.image_rows) {
                continue;
            }
            const __m512 sums =
                first_fold_sums<interior>(r, taps + oh * r.windows, stride, kh, lane);
            float* row = rows[y - s.pad_top];
            const __m512 onto = _mm512_maskz_permutexvar_ps(image, from_padded, sums);
            _mm512_store_ps(row, _mm512_add_ps(_mm512_load_ps(row), onto));
        }
    }
    for (std::size_t y = 0; y < s.image_rows; ++y) {
        _mm512_mask_storeu_ps(out + y * r.width, image, _mm512_load_ps(rows[y]));
    }
}

TOPOS_AVX512 void fold_plane_double(const FoldPlaneShape& s,
                                    const double* taps,
                                    std::size_t stride,
                                    double* out) {
    const FoldRowShape& r = s.row;
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const auto image = static_cast<__mmask8>(first_lanes(r.width));
    const __m512i from_padded =
        _mm512_add_epi64(lane, _mm512_set1_epi64(static_cast<long long>(r.pad_left)));
    alignas(64) double rows[most_plane_rows][8];
    for (std::size_t y = 0; y < s.image_rows; ++y) {
        _mm512_store_pd(rows[y], _mm512_setzero_pd());
    }
    for (std::size_t oh = 0; oh < s.rows; ++oh) {
        for (std::size_t kh = 0; kh < r.kernel_rows; ++kh) {
            const std::size_t y = oh + kh;
            if (y < s.pad_top || y - s.pad_top >= s.image_rows) {
                continue;
            }
            const __m512d sums = tap_row_sums(r, taps + oh * r.windows, stride, kh, lane);
            double* row = rows[y - s.pad_top];
            const __m512d onto = _mm512_maskz_permutexvar_pd(image, from_padded, sums);
            _mm512_store_pd(row, _mm512_add_pd(_mm512_load_pd(row), onto));
        }
    }
    for (std::size_t y = 0; y < s.image_rows; ++y) {
        _mm512_mask_storeu_pd(out + y * r.width, image, _mm512_load_pd(rows[y]));
    }
}
#endif

// Whether the lanes hold a row of `shape` on `isa`.
template <Element T>
bool fits_in_lanes([[maybe_unused]] Isa isa, [[maybe_unused]] const FoldRowShape& shape) {
#if defined(TOPOS_FOLD_ROW_LANES)
    constexpr std::size_t lanes = 64 / sizeof(T);
    return isa == Isa::Avx512 && shape.windows > 0 && shape.kernel_columns > 0 &&
           shape.windows + shape.kernel_columns - 1 <= lanes &&
           shape.pad_left + shape.width <= lanes;
#else
    return false;
#endif
}

}  // namespace

template <Element T, Interior interior>
FoldPlane<T> fold_plane_kernel([[maybe_unused]] Isa isa,
                               [[maybe_unused]] const FoldPlaneShape& shape) {
    static_assert(interior == Interior::AsComputed || sizeof(T) == 4);
#if defined(TOPOS_FOLD_ROW_LANES)
    if (fits_in_lanes<T>(isa, shape.row) && shape.image_rows <= most_plane_rows) {
        if constexpr (sizeof(T) == 4) {
            return fold_plane_float<interior>;
        } else {
            return fold_plane_double;
        }
    }
#endif
    return nullptr;
}

template <Element T, Interior interior>
FoldRow<T> fold_row_kernel([[maybe_unused]] Isa isa, [[maybe_unused]] const FoldRowShape& shape) {
    static_assert(interior == Interior::AsComputed || sizeof(T) == 4);
#if defined(TOPOS_FOLD_ROW_LANES)
    if (fits_in_lanes<T>(isa, shape)) {
        if constexpr (sizeof(T) == 4) {
            return fold_row_float<interior>;
        } else {
            return fold_row_double;
        }
    }
#endif
    return nullptr;
}

template FoldRow<float> fold_row_kernel<float>(Isa, const FoldRowShape&);
template FoldRow<double> fold_row_kernel<double>(Isa, const FoldRowShape&);
template FoldRow<float> fold_row_kernel<float, Interior::RoundedToBf16>(Isa, const FoldRowShape&);
template FoldPlane<float> fold_plane_kernel<float>(Isa, const FoldPlaneShape&);
template FoldPlane<double> fold_plane_kernel<double>(Isa, const FoldPlaneShape&);
template FoldPlane<float> fold_plane_kernel<float, Interior::RoundedToBf16>(Isa,
                                                                            const FoldPlaneShape&);

}  // namespace topos::detail
