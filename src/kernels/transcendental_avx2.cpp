// exact_map with AVX2 and FMA: four doubles a vector (a float vector is four
// floats widened), masks as all-ones lanes. Compiled for AVX2 and FMA by a
// target push and pop only; called only where the processor reports both.
#if defined(__x86_64__)

#include "core/exact_math.hpp"
#include "kernels/transcendental.hpp"

// Every standard header the lanes use comes before the target push: clang
// refuses to retarget a function already defined.
#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include "kernels/exact_map_lanes.hpp"

namespace topos::detail {
namespace {

struct Avx2Lanes {
    using V = __m256d;
    using M = __m256d;
    static constexpr std::size_t width = 4;

    static V splat(double c) { return _mm256_set1_pd(c); }

    static V load(const double* p) { return _mm256_loadu_pd(p); }

    static V load(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }

    static void store(double* p, V v) { _mm256_storeu_pd(p, v); }

    static void store(float* p, V v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v)); }

    // Whether v's bits under `mask`, less `start`, read as unsigned, are at
    // least 2^width_log2.
    static M low_bits_outside(V v, std::uint64_t mask, std::uint64_t start, int width_log2) {
        const __m256i low = _mm256_and_si256(bits_of(v), bits_splat(mask));
        const __m256i beyond =
            _mm256_srli_epi64(_mm256_sub_epi64(low, bits_splat(start)), width_log2);
        return _mm256_castsi256_pd(_mm256_cmpgt_epi64(beyond, _mm256_setzero_si256()));
    }

    static V add(V a, V b) { return _mm256_add_pd(a, b); }

    static V sub(V a, V b) { return _mm256_sub_pd(a, b); }

    static V mul(V a, V b) { return _mm256_mul_pd(a, b); }

    static V div(V a, V b) { return _mm256_div_pd(a, b); }

    static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }

    static V xor_bits(V a, V b) { return _mm256_xor_pd(a, b); }

    static V negate(V a) { return xor_bits(a, splat(-0.0)); }

    static V magnitude(V a) { return _mm256_andnot_pd(splat(-0.0), a); }

    static V sign_of(V a) { return _mm256_and_pd(splat(-0.0), a); }

    static M lt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }

    static M le(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }

    static M gt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }

    static M ge(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }

    static M eq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }

    static M unordered(V a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }

    static M both(M a, M b) { return _mm256_and_pd(a, b); }

    static M either(M a, M b) { return _mm256_or_pd(a, b); }

    static bool all(M m) { return _mm256_movemask_pd(m) == 0xf; }

    static bool any(M m) { return _mm256_movemask_pd(m) != 0; }

    static V select(M m, V if_set, V if_clear) { return _mm256_blendv_pd(if_clear, if_set, m); }

    static __m256i bits_of(V a) { return _mm256_castpd_si256(a); }

    static __m256i bits_splat(std::uint64_t b) {
        return _mm256_set1_epi64x(static_cast<long long>(b));
    }

    // The exponent field of a nonnegative double, as a whole double: the field
    // in the low bits of 2^52's pattern, 2^52 taken away.
    static V exponent_field(V a) {
        const __m256i field = _mm256_srli_epi64(bits_of(a), 52);
        const V two_52_plus_field =
            _mm256_castsi256_pd(_mm256_or_si256(field, bits_of(splat(0x1p52))));
        return sub(two_52_plus_field, splat(0x1p52));
    }

    // The mantissa of a with the exponent of 1: a value in [1, 2).
    static V unit_mantissa(V a) {
        const __m256i mantissa =
            _mm256_and_si256(bits_of(a), bits_splat(exact::detail::mantissa_mask));
        return _mm256_castsi256_pd(
            _mm256_or_si256(mantissa, bits_splat(exact::detail::exponent_of_one)));
    }

    // row[piece]: piece + 2^52 holds the piece in its low bits; a double's
    // two halves are 32-bit lanes 2 piece and 2 piece + 1 of the row (the
    // permutation reads the low three bits of each index).
    static V pick(V piece, const std::array<double, 4>& row) {
        const __m256i twice = _mm256_slli_epi64(bits_of(add(piece, splat(0x1p52))), 1);
        const __m256i index =
            _mm256_add_epi64(_mm256_add_epi64(twice, _mm256_slli_epi64(twice, 32)),
                             _mm256_set1_epi64x(std::int64_t{1} << 32));
        return _mm256_castsi256_pd(
            _mm256_permutevar8x32_epi32(_mm256_castpd_si256(_mm256_loadu_pd(row.data())), index));
    }

    // 2^k: k + 1.5 * 2^52 holds k in its low bits; k + 1023 shifted into the exponent.
    static V pow2(V k) {
        const __m256i biased = _mm256_add_epi64(_mm256_castpd_si256(add(k, splat(0x1.8p52))),
                                                _mm256_set1_epi64x(1023));
        return _mm256_castsi256_pd(_mm256_slli_epi64(biased, 52));
    }
};

}  // namespace

void exact_map_avx2(ExactFunction f, const float* x, float* out, std::size_t count) {
    lanes::map<Avx2Lanes>(f, x, out, count);
}

void exact_map_avx2(ExactFunction f, const double* x, double* out, std::size_t count) {
    lanes::map<Avx2Lanes>(f, x, out, count);
}

}  // namespace topos::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__
