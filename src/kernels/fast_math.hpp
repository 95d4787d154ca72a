// The Fast numerics' float transcendentals: exp, tanh, sigmoid, erf, gelu,
// log and softplus computed in float with plain operations (fma, no pairs),
// each a few units in the last place from the exact value (the bounds, over
// every float, are in docs/exact-math.md; tools/fast_lanes_sweep.cpp measures
// them). Every function is branch-free per element, so a loop over a buffer
// vectorises, and every operation is exactly rounded or exact, so the
// portable, AVX2 and AVX-512 copies of a loop give the same bits.
//
// The polynomials come from tools/fast-math-coefficients.py, which prints
// each one's relative error.
#pragma once

#include "core/bit_cast.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

namespace topos::detail::fast {

// exp(r) on |r| <= ln2 / 2.
// Relative error of the rounded coefficients: 2^-28.9.
inline constexpr std::array<float, 8> exp_poly{0x1p+0f,
                                               0x1p+0f,
                                               0x1p-1f,
                                               0x1.555556p-3f,
                                               0x1.555464p-5f,
                                               0x1.1110a6p-7f,
                                               0x1.6da7e4p-10f,
                                               0x1.a17e74p-13f};

// tanh(x) / x as a polynomial in z = x^2, |x| <= 0.55.
// Relative error of the rounded coefficients: 2^-28.1.
inline constexpr std::array<float, 8> tanh_poly{0x1p+0f,
                                                -0x1.555556p-2f,
                                                0x1.11110ep-3f,
                                                -0x1.ba1a54p-5f,
                                                0x1.662cdp-6f,
                                                -0x1.207af6p-7f,
                                                0x1.b6e546p-9f,
                                                -0x1.dd65c2p-11f};

// 2 atanh(s) / s as a polynomial in z = s^2, |s| <= 1/3: log(m) = 2 atanh((m - 1) / (m + 1))
// and log1p(e) = 2 atanh(e / (2 + e)).
// Relative error of the rounded coefficients: 2^-29.6.
inline constexpr std::array<float, 7> atanh_poly{0x1p+1f,
                                                 0x1.555556p-1f,
                                                 0x1.9999c2p-2f,
                                                 0x1.2489aep-2f,
                                                 0x1.c8cf1cp-3f,
                                                 0x1.5eab68p-3f,
                                                 0x1.bfb456p-3f};

// erf(u) / u as a polynomial in z = u^2, |u| <= 1.
// Relative error of the rounded coefficients: 2^-23.5.
inline constexpr std::array<float, 10> erf_poly{0x1.20dd76p+0f,
                                                -0x1.812746p-2f,
                                                0x1.ce2f22p-4f,
                                                -0x1.b82ce2p-6f,
                                                0x1.565bap-8f,
                                                -0x1.c0286cp-11f,
                                                0x1.f941bep-14f,
                                                -0x1.f0705ap-17f,
                                                0x1.9ae098p-20f,
                                                -0x1.c1a516p-24f};

inline constexpr float erfc_centre = 0x1.13db9p-1f;

// exp(u^2) erfc(u) as a polynomial in t - erfc_centre, t = 3 / (3 + u), 0.5 <= u <= 10.61.
// Relative error of the rounded coefficients: 2^-23.6.
inline constexpr std::array<float, 14> erfc_poly{0x1.a5988p-3f,
                                                 0x1.77ff18p-1f,
                                                 0x1.2209b8p+0f,
                                                 0x1.641004p+0f,
                                                 0x1.4dd172p+0f,
                                                 0x1.ae7a14p-1f,
                                                 0x1.efd68ep-3f,
                                                 -0x1.1c4082p-3f,
                                                 -0x1.3fedf8p-3f,
                                                 0x1.06a6e2p-8f,
                                                 0x1.287c9ap-4f,
                                                 0x1.37b956p-7f,
                                                 -0x1.ff7b22p-6f,
                                                 -0x1.487892p-8f};

// p(h) by Horner's rule, one fma a coefficient, unrolled at compile time (a
// loop in the body would keep the compiler from vectorising the caller).
template <std::size_t N, std::size_t... I>
inline float horner(const std::array<float, N>& c, float h, std::index_sequence<I...>) {
    float p = c[N - 1];
    ((p = std::fma(p, h, c[N - 2 - I])), ...);
    return p;
}

template <std::size_t N>
inline float polynomial(const std::array<float, N>& c, float h) {
    return horner(c, h, std::make_index_sequence<N - 1>{});
}

inline float copy_sign(float magnitude, float sign) {
    const std::uint32_t sign_bit = detail::bit_cast<std::uint32_t>(sign) & 0x80000000u;
    return detail::bit_cast<float>((detail::bit_cast<std::uint32_t>(magnitude) & 0x7fffffffu) |
                                   sign_bit);
}

// A NaN argument's own NaN (quietened), else y: the NaN a function returns
// does not depend on which operand the lanes' instructions propagate.
inline float with_nan(float x, float y) {
    return std::isnan(x) ? x + x : y;
}

// 2^k for -75 <= k <= 64, as an unsigned two's complement k.
inline float power_of_two(std::uint32_t k) {
    return detail::bit_cast<float>((k + 127u) << 23);
}

// exp(x) = 2^k exp(r), x = k ln2 + r: k rounded by the float shifter (no
// conversion, so NaN needs no care), r by two fmas, 2^k applied as two
// factors so that the one rounding of a subnormal result is the last.
inline float exp(float x) {
    constexpr float shifter = 0x1.8p23f;
    constexpr float log2e = 0x1.715476p+0f;
    constexpr float ln2_high = 0x1.62e4p-1f;
    constexpr float ln2_low = 0x1.7f7d1cp-20f;
    float clamped = x > 89.0f ? 89.0f : x;
    clamped = clamped < -104.0f ? -104.0f : clamped;
    const float shifted = std::fma(clamped, log2e, shifter);
    const float k = shifted - shifter;
    float r = std::fma(-k, ln2_high, clamped);
    r = std::fma(-k, ln2_low, r);
    const std::uint32_t whole =
        detail::bit_cast<std::uint32_t>(shifted) - detail::bit_cast<std::uint32_t>(shifter);
    const auto half = static_cast<std::uint32_t>(static_cast<std::int32_t>(whole) >> 1);
    return with_nan(x, polynomial(exp_poly, r) * power_of_two(half) * power_of_two(whole - half));
}

// exp(-(h + l)) for h + l = u^2 exactly (h = u * u, l its rounding error):
// exp(-h) (1 - l), |l| being at most 2^-24 h.
inline float exp_of_negative_square(float u) {
    const float h = u * u;
    const float l = std::fma(u, u, -h);
    const float e = exp(-h);
    return std::fma(-l, e, e);
}

// tanh |x| = (1 - e) / (1 + e), e = exp(-2 |x|); its polynomial up to 0.55,
// where 1 - e would cancel.
inline float tanh(float x) {
    const float a = std::fabs(x);
    const float e = exp(-2.0f * a);
    const float large = copy_sign((1.0f - e) / (1.0f + e), x);
    const float small = x * polynomial(tanh_poly, x * x);
    return with_nan(x, a <= 0.55f ? small : large);
}

// sigmoid x = 1 / (1 + e) for x >= 0, e / (1 + e) below, e = exp(-|x|).
inline float sigmoid(float x) {
    const float e = exp(-std::fabs(x));
    const float denominator = 1.0f + e;
    return with_nan(x, x >= 0.0f ? 1.0f / denominator : e / denominator);
}

// atanh_poly past its constant 2: 2 atanh(s) = 2 s + s z tail(z), z = s^2.
inline constexpr std::array<float, 6> atanh_tail{
    atanh_poly[1], atanh_poly[2], atanh_poly[3], atanh_poly[4], atanh_poly[5], atanh_poly[6]};

// log(1 + f) = 2 atanh(s), s = f / (2 + f) (|s| <= 1/3), written as f - (f^2/2 -
// s (f^2/2 + s z tail(z))) so that f, exact, carries the value and the
// rounding of s touches only the small correction.
inline float log1p_by_atanh(float f) {
    const float s = f / (2.0f + f);
    const float z = s * s;
    const float r = z * polynomial(atanh_tail, z);
    const float half_square = 0.5f * f * f;
    return f - (half_square - s * (half_square + r));
}

// log x = k ln2 + 2 atanh((m - 1) / (m + 1)), x = 2^k m with m in
// [sqrt(1/2), sqrt 2); subnormals scaled by 2^23 first.
inline float log(float x) {
    constexpr float ln2_high = 0x1.62e4p-1f;
    constexpr float ln2_low = 0x1.7f7d1cp-20f;
    const bool subnormal = x < 0x1p-126f;
    const float normal = subnormal ? x * 0x1p23f : x;
    const std::uint32_t bits =
        detail::bit_cast<std::uint32_t>(normal) + (0x3f800000u - 0x3f3504f3u);
    const auto k =
        static_cast<float>(static_cast<std::int32_t>(bits >> 23) - 127 - (subnormal ? 23 : 0));
    const float m = detail::bit_cast<float>((bits & 0x007fffffu) + 0x3f3504f3u);
    const float logm = log1p_by_atanh(m - 1.0f);
    const float y = std::fma(k, ln2_high, std::fma(k, ln2_low, logm));
    constexpr float infinity = std::numeric_limits<float>::infinity();
    const float edge = x == 0.0f       ? -infinity
                       : x == infinity ? infinity
                                       : std::numeric_limits<float>::quiet_NaN();
    return with_nan(x, x > 0.0f && x < infinity ? y : edge);
}

// softplus x = max(x, 0) + log1p(e), e = exp(-|x|).
inline float softplus(float x) {
    const float e = exp(-std::fabs(x));
    return with_nan(x, (x > 0.0f ? x : 0.0f) + log1p_by_atanh(e));
}

// exp(u^2) erfc(u) for 0.5 <= u (held at 10.61 above, where exp(-u^2) is long since 0).
inline float scaled_erfc(float u) {
    const float held = u > 10.61f ? 10.61f : u;
    return polynomial(erfc_poly, 3.0f / (3.0f + held) - erfc_centre);
}

// erf |x| = |x| p(x^2) up to 1, 1 - erfc |x| above.
inline float erf(float x) {
    const float a = std::fabs(x);
    const float held = a > 10.61f ? 10.61f : a;
    const float large = copy_sign(1.0f - exp_of_negative_square(held) * scaled_erfc(held), x);
    const float small = x * polynomial(erf_poly, x * x);
    return with_nan(x, a <= 1.0f ? small : large);
}

// gelu x = x/2 (1 + erf(x / sqrt 2)) for |x| <= 1/sqrt 2; above, x/2 erfc(u)
// for x < 0 and x (1 - erfc(u) / 2) for x > 0, u = |x| / sqrt 2, exp(-u^2)
// taken from x^2 / 2 exactly. -0 below -15, where x/2 erfc(u) is below the
// least subnormal.
inline float gelu(float x) {
    constexpr float inverse_sqrt2 = 0x1.6a09e6p-1f;
    const float a = std::fabs(x);
    const float held = a > 15.0f ? 15.0f : a;
    const float w = x * inverse_sqrt2;
    const float small = 0.5f * x * (1.0f + w * polynomial(erf_poly, w * w));
    const float h = held * held;
    const float l = std::fma(held, held, -h);
    const float e = exp(-0.5f * h);
    const float gaussian = std::fma(-0.5f * l, e, e);
    const float half_scaled = 0.5f * scaled_erfc(held * inverse_sqrt2);
    // The negative side's factors in the order that keeps the product normal
    // until its one last rounding.
    const float large = x > 0.0f     ? x * (1.0f - half_scaled * gaussian)
                        : x < -15.0f ? -0.0f
                                     : x * half_scaled * gaussian;
    return with_nan(x, a <= inverse_sqrt2 ? small : large);
}

}  // namespace topos::detail::fast
