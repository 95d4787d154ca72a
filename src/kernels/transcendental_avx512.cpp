// exact_map with AVX-512F: eight doubles a vector (a float vector is eight
// floats widened). Compiled for AVX-512F by a target push and pop only, so the
// rest of the library stays baseline x86-64; called only where the processor
// reports AVX-512F.
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
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif

#include "kernels/exact_map_lanes.hpp"

namespace topos::detail {
namespace {

struct Avx512Lanes {
    using V = __m512d;
    using M = __mmask8;
    static constexpr std::size_t width = 8;

    // (The zero-masked forms of the conversions and the shift below: g++ 12
    // warns of the plain ones' undefined sources.)

    static V splat(double c) { return _mm512_set1_pd(c); }

    static V load(const double* p) { return _mm512_loadu_pd(p); }

    static V load(const float* p) { return _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(p)); }

    static void store(double* p, V v) { _mm512_storeu_pd(p, v); }

    static void store(float* p, V v) { _mm256_storeu_ps(p, _mm512_maskz_cvtpd_ps(0xff, v)); }

    // Whether v's bits under `mask`, less `start`, read as unsigned, are at
    // least 2^width_log2.
    static M low_bits_outside(V v, std::uint64_t mask, std::uint64_t start, int width_log2) {
        const __m512i low = _mm512_castpd_si512(bits_and(v, mask));
        const __m512i offset =
            _mm512_sub_epi64(low, _mm512_set1_epi64(static_cast<long long>(start)));
        const __m512i beyond =
            _mm512_maskz_srli_epi64(0xff, offset, static_cast<unsigned>(width_log2));
        return _mm512_test_epi64_mask(beyond, beyond);
    }

    static V add(V a, V b) { return _mm512_add_pd(a, b); }

    static V sub(V a, V b) { return _mm512_sub_pd(a, b); }

    static V mul(V a, V b) { return _mm512_mul_pd(a, b); }

    static V div(V a, V b) { return _mm512_div_pd(a, b); }

    static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }

    static V bits_and(V a, std::uint64_t mask) {
        return _mm512_castsi512_pd(_mm512_and_si512(
            _mm512_castpd_si512(a), _mm512_set1_epi64(static_cast<long long>(mask))));
    }

    static V xor_bits(V a, V b) {
        return _mm512_castsi512_pd(
            _mm512_xor_si512(_mm512_castpd_si512(a), _mm512_castpd_si512(b)));
    }

    static V negate(V a) { return xor_bits(a, splat(-0.0)); }

    static V magnitude(V a) { return bits_and(a, ~exact::detail::sign_mask); }

    static V sign_of(V a) { return bits_and(a, exact::detail::sign_mask); }

    static M lt(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }

    static M le(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }

    static M gt(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }

    static M ge(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }

    static M eq(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }

    static M unordered(V a) { return _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q); }

    static M both(M a, M b) { return static_cast<M>(a & b); }

    static M either(M a, M b) { return static_cast<M>(a | b); }

    static bool all(M m) { return m == 0xff; }

    static bool any(M m) { return m != 0; }

    static V select(M m, V if_set, V if_clear) { return _mm512_mask_blend_pd(m, if_clear, if_set); }

    // The exponent field of a nonnegative double, as a whole double: the field
    // in the low bits of 2^52's pattern, 2^52 taken away.
    static V exponent_field(V a) {
        const __m512i field = _mm512_maskz_srli_epi64(0xff, _mm512_castpd_si512(a), 52);
        const V two_52_plus_field =
            _mm512_castsi512_pd(_mm512_or_si512(field, _mm512_castpd_si512(splat(0x1p52))));
        return sub(two_52_plus_field, splat(0x1p52));
    }

    // The mantissa of a with the exponent of 1: a value in [1, 2).
    static V unit_mantissa(V a) {
        const __m512i mantissa = _mm512_castpd_si512(bits_and(a, exact::detail::mantissa_mask));
        return _mm512_castsi512_pd(_mm512_or_si512(
            mantissa, _mm512_set1_epi64(static_cast<long long>(exact::detail::exponent_of_one))));
    }

    // row[piece]: piece + 2^52 holds the piece in its low bits, which the
    // permutation reads.
    static V pick(V piece, const std::array<double, 4>& row) {
        const __m512i index = _mm512_castpd_si512(add(piece, splat(0x1p52)));
        const V rows = _mm512_maskz_broadcast_f64x4(0xff, _mm256_loadu_pd(row.data()));
        return _mm512_maskz_permutexvar_pd(0xff, index, rows);
    }

    // 2^k: k + 1.5 * 2^52 holds k in its low bits; k + 1023 shifted into the exponent.
    static V pow2(V k) {
        const __m512i biased =
            _mm512_add_epi64(_mm512_castpd_si512(add(k, splat(0x1.8p52))), _mm512_set1_epi64(1023));
        return _mm512_castsi512_pd(_mm512_maskz_slli_epi64(0xff, biased, 52));
    }
};

}  // namespace

void exact_map_avx512(ExactFunction f, const float* x, float* out, std::size_t count) {
    lanes::map<Avx512Lanes>(f, x, out, count);
}

void exact_map_avx512(ExactFunction f, const double* x, double* out, std::size_t count) {
    lanes::map<Avx512Lanes>(f, x, out, count);
}

}  // namespace topos::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__
