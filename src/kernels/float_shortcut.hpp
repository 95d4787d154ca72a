// The float functions' shortcut: exp, tanh, sigmoid, erf, gelu, log and
// softplus of float arguments evaluated in double lanes with plain operations
// (no pairs), within about 2^-44 of the exact value, where the exact lanes
// carry about 2^-60. A lane's result is kept when its rounding to float is
// certain: when no midpoint between two floats lies within 2^-40 |y| of y, the
// exact value and the exact lanes' double, both that close to y, round to the
// float y rounds to, so the bits are exact::f's for the float argument. A vector
// with a lane whose rounding is not certain (about one lane in 2^15) or that
// lies outside the shortcut's domain (NaN, infinities, far tails) is left to
// the exact lanes. tools/exact_lanes_sweep.cpp checks every float, and
// tests/support/float_hard_cases.hpp lists the floats whose results lie
// nearest a midpoint between two floats, which CTest runs.
//
// The polynomials come from tools/float-shortcut-coefficients.py, which
// prints each one's relative error.
#pragma once

#include "kernels/exact_lanes.hpp"
#include "kernels/float_midpoint.hpp"

#include <array>
#include <cstdint>

namespace topos::detail::lanes::shortcut {

// exp(r) on |r| <= ln2 / 2.
// Relative error of the rounded coefficients: 2^-45.6.
inline constexpr std::array<double, 10> exp_poly{0x1.000000000003dp+0,
                                                 0x1.0000000000006p+0,
                                                 0x1.ffffffffe74efp-2,
                                                 0x1.5555555550d87p-3,
                                                 0x1.55555588b877dp-5,
                                                 0x1.11111123bf298p-7,
                                                 0x1.6c162bb76d4d9p-10,
                                                 0x1.a01994c7fac3fp-13,
                                                 0x1.a17df159a5ce9p-16,
                                                 0x1.72e10825eab0ap-19};

// erf(u) / u as a polynomial in z = u^2, u <= 1.5 / sqrt 2.
// Relative error of the rounded coefficients: 2^-49.2.
inline constexpr std::array<double, 11> erf_poly{0x1.20dd750429b67p+0,
                                                 -0x1.812746b03659ap-2,
                                                 0x1.ce2f219f8df4bp-4,
                                                 -0x1.b82ce2eb3a109p-6,
                                                 0x1.565bc8aa41251p-8,
                                                 -0x1.c02d211be9e5bp-11,
                                                 0x1.f99724c8b8a3fp-14,
                                                 -0x1.f4300fe71bc63p-17,
                                                 0x1.b45820f4d0683p-20,
                                                 -0x1.40a0878320367p-23,
                                                 0x1.3269cf0c21ad4p-27};

inline constexpr double erfc_centre = 0x1.eb1f2ed7eb46cp-2;

// exp(u^2) erfc(u) as a polynomial in t - erfc_centre, t = 3 / (3 + u), 1.5 / sqrt 2 <= u <=
// 10.61.
// Relative error of the rounded coefficients: 2^-48.9.
inline constexpr std::array<double, 16> erfc_poly{0x1.542a674c5b723p-3,
                                                  0x1.3a4ca3a017d2cp-1,
                                                  0x1.d2d14f6fcae52p-1,
                                                  0x1.1c50ea5e9e724p+0,
                                                  0x1.119d6f40eb010p+0,
                                                  0x1.7e2a538e7f85ap-1,
                                                  0x1.233823c6135aep-2,
                                                  -0x1.0ea1d05709d53p-4,
                                                  -0x1.2de43b83e6115p-3,
                                                  -0x1.25f4ceef1f04cp-5,
                                                  0x1.e1d5b09622af8p-5,
                                                  0x1.140c679e1aff2p-5,
                                                  -0x1.ba9fed13daebap-6,
                                                  -0x1.70dc860f248b7p-6,
                                                  0x1.c17226b551803p-7,
                                                  0x1.92da0a85aa19cp-7};

// 2 atanh(s) / s as a polynomial in z = s^2, |s| <= 1/3: log(m) = 2 atanh((m - 1) / (m + 1))
// and log1p(e) = 2 atanh(e / (2 + e)).
// Relative error of the rounded coefficients: 2^-48.9.
inline constexpr std::array<double, 9> atanh_poly{0x1.0000000000007p+1,
                                                  0x1.555555554ab02p-1,
                                                  0x1.999999ad7f2d3p-2,
                                                  0x1.24924201346fep-2,
                                                  0x1.c71f00220063cp-3,
                                                  0x1.741ba346d2a33p-3,
                                                  0x1.3ee3597079f29p-3,
                                                  0x1.e11304c45c4bep-4,
                                                  0x1.802a0bb9f02a2p-3};

// erf's polynomial serves u = |x| / sqrt 2 below 1.5 / sqrt 2 (gelu's |x| below
// 1.5); erfc's up to 10.61.
inline constexpr double erf_poly_end = 0x1.0f876ccdf6cd9p+0;   // 1.5 / sqrt 2
inline constexpr double erfc_poly_end = 0x1.53851eb851eb8p+3;  // 10.61
// Where y's bits below a float's precision (float_midpoint.hpp) lie at least
// 2^13 from the midpoint pattern, y is at least 2^13 ulp(y) >= 2^-40 |y| from
// every midpoint: the window of undecided lanes is the pattern +- 2^13.
inline constexpr std::uint64_t undecided_start =
    float_midpoint::midpoint_pattern - (std::uint64_t{1} << 13);
inline constexpr int undecided_width_log2 = 14;
// The midpoints of float subnormals are not where a double's bits say (their
// spacing is 2^-149 whatever the double's exponent): from 2^-126 down, only
// magnitudes below 2^-151, which round to 0, are decided.
inline constexpr double smallest_normal_float = 0x1p-126;
inline constexpr double rounds_to_zero = 0x1p-151;
inline constexpr double ln2 = 0x1.62e42fefa39efp-1;

// tanh(x) / x = 1 - z/3 + 2 z^2 / 15 - 17 z^3 / 315 (z = x^2), for |x| < 2^-6.
inline constexpr std::array<double, 4> tanh_small_poly{
    0x1p+0, -0x1.5555555555555p-2, 0x1.1111111111111p-3, -0x1.ba1ba1ba1ba1cp-5};

template <class L>
struct Result {
    typename L::V value;
    typename L::M kept;  // the lanes whose float the value decides
};

// exp(x) for |x| <= 708: x = k ln2 + r, exp(r) by its polynomial, times 2^k.
template <class L>
TOPOS_LANES_INLINE typename L::V exp_of(typename L::V x) {
    const auto k = round_to_integer<L>(L::mul(x, constant<L>(scalar::inv_ln2)));
    auto r = L::fma(L::negate(k), constant<L>(scalar::ln2_hi), x);
    r = L::fma(L::negate(k), constant<L>(scalar::ln2_lo), r);
    return L::mul(horner<L>(r, exp_poly), L::pow2(k));
}

// exp(-u^2) erfc(u)'s smooth factor times exp(-u^2): erfc(u) for
// 1.5 / sqrt 2 <= u <= 10.61.
template <class L>
TOPOS_LANES_INLINE typename L::V erfc_of(typename L::V u) {
    const auto three = constant<L>(3.0);
    const auto t = L::div(three, L::add(three, u));
    const auto smooth = horner<L>(L::sub(t, constant<L>(erfc_centre)), erfc_poly);
    return L::mul(exp_of<L>(L::negate(L::mul(u, u))), smooth);
}

// Whether y's rounding to float is decided: no float midpoint within
// 2^-40 |y| of y (false for NaN).
template <class L>
TOPOS_LANES_INLINE typename L::M rounds_certainly(typename L::V y) {
    const auto ay = L::magnitude(y);
    const auto away_from_midpoints = L::low_bits_outside(
        y, float_midpoint::below_float_precision, undecided_start, undecided_width_log2);
    return L::either(L::both(L::ge(ay, constant<L>(smallest_normal_float)), away_from_midpoints),
                     L::lt(ay, constant<L>(rounds_to_zero)));
}

template <class L>
TOPOS_LANES_INLINE Result<L> kept_where(typename L::V y, typename L::M inside) {
    return {y, L::both(inside, rounds_certainly<L>(y))};
}

// Beyond |x| = 700 (infinities too), where a float's exp or sigmoid is long
// since +0 below and its limit above: `low` for negative x, else `high`.
template <class L>
TOPOS_LANES_INLINE typename L::V beyond(typename L::V x, double low, double high) {
    return L::select(L::lt(x, constant<L>(0.0)), constant<L>(low), constant<L>(high));
}

// exp: its polynomial for |x| <= 700; +0 below (a causal mask's -inf in a
// softmax) and +inf above. Only NaN is left to the exact lanes.
template <class L>
TOPOS_LANES_INLINE Result<L> exp(typename L::V x) {
    const auto ax = L::magnitude(x);
    const auto inside = L::le(ax, constant<L>(700.0));
    const auto y = exp_of<L>(L::select(inside, x, constant<L>(0.0)));
    return kept_where<L>(L::select(inside, y, beyond<L>(x, 0.0, scalar::infinity)),
                         L::le(ax, constant<L>(scalar::infinity)));
}

// tanh |x| = (1 - e) / (1 + e), e = exp(-2 |x|) (|x| from 20 on gives 1), its
// polynomial below 2^-6, where 1 - e would cancel.
template <class L>
TOPOS_LANES_INLINE Result<L> tanh(typename L::V x) {
    const auto one = constant<L>(1.0);
    const auto ax = L::magnitude(x);
    const auto clamped = L::select(L::lt(ax, constant<L>(20.0)), ax, constant<L>(20.0));
    const auto e = exp_of<L>(L::mul(constant<L>(-2.0), clamped));
    const auto large = L::xor_bits(L::div(L::sub(one, e), L::add(one, e)), L::sign_of(x));
    const auto small = L::mul(x, horner<L>(L::mul(x, x), tanh_small_poly));
    const auto y = L::select(L::lt(ax, constant<L>(0x1p-6)), small, large);
    return kept_where<L>(y, L::le(ax, constant<L>(scalar::infinity)));
}

// sigmoid x = 1 / (1 + e) for x >= 0, e / (1 + e) below, e = exp(-|x|).
template <class L>
TOPOS_LANES_INLINE Result<L> sigmoid(typename L::V x) {
    const auto one = constant<L>(1.0);
    const auto ax = L::magnitude(x);
    const auto inside = L::le(ax, constant<L>(700.0));
    const auto e = exp_of<L>(L::negate(L::select(inside, ax, constant<L>(0.0))));
    const auto s = L::div(one, L::add(one, e));
    const auto y = L::select(L::ge(x, constant<L>(0.0)), s, L::mul(e, s));
    return kept_where<L>(L::select(inside, y, beyond<L>(x, 0.0, 1.0)),
                         L::le(ax, constant<L>(scalar::infinity)));
}

// erf |x| = |x| p(x^2) below 1.5 / sqrt 2, 1 - erfc |x| above (1 from 6 on).
template <class L>
TOPOS_LANES_INLINE Result<L> erf(typename L::V x) {
    const auto u = L::magnitude(x);
    const auto small = L::mul(u, horner<L>(L::mul(u, u), erf_poly));
    const auto clamped = L::select(L::lt(u, constant<L>(6.0)), u, constant<L>(6.0));
    const auto tail = L::select(L::lt(u, constant<L>(erf_poly_end)), constant<L>(2.0), clamped);
    const auto large = L::sub(constant<L>(1.0), erfc_of<L>(tail));
    const auto y = L::select(L::lt(u, constant<L>(erf_poly_end)), small, large);
    return kept_where<L>(L::xor_bits(y, L::sign_of(x)), L::le(u, constant<L>(scalar::infinity)));
}

// gelu x = x/2 (1 + erf(x / sqrt 2)) for |x| < 1.5; above, x/2 erfc(u) for
// x < 0 and x (1 - erfc(u) / 2) for x > 0, u = |x| / sqrt 2 (erfc taken at
// most at 10.61, where its half is far below 2^-53). Below -15 the exact lanes
// take over.
template <class L>
TOPOS_LANES_INLINE Result<L> gelu(typename L::V x) {
    const auto half = constant<L>(0.5);
    const auto root_half = constant<L>(scalar::inv_sqrt2_hi);
    const auto half_x = L::mul(half, x);
    const auto v = L::mul(x, root_half);
    const auto erf_v = L::mul(v, horner<L>(L::mul(v, v), erf_poly));
    const auto small = L::mul(half_x, L::add(constant<L>(1.0), erf_v));  // -0 stays -0
    const auto u = L::magnitude(v);
    const auto near = L::lt(u, constant<L>(erf_poly_end));
    const auto far = L::lt(u, constant<L>(erfc_poly_end));
    const auto w = L::select(near, constant<L>(2.0), L::select(far, u, constant<L>(erfc_poly_end)));
    const auto c = erfc_of<L>(w);
    const auto below = L::mul(half_x, c);
    const auto above = L::fma(L::negate(half_x), c, x);
    const auto y = L::select(near, small, L::select(L::lt(x, constant<L>(0.0)), below, above));
    return kept_where<L>(y, L::ge(x, constant<L>(-15.0)));
}

// log x = e ln2 + 2 atanh((m - 1) / (m + 1)), x = 2^e m with m in
// [sqrt(1/2), sqrt 2) (a float argument is a normal double); for 0 < x < inf.
template <class L>
TOPOS_LANES_INLINE Result<L> log(typename L::V x) {
    const auto one = constant<L>(1.0);
    const auto inside =
        L::both(L::gt(x, constant<L>(0.0)), L::lt(x, constant<L>(scalar::infinity)));
    const auto t = L::select(inside, x, one);
    auto e = L::sub(L::exponent_field(t), constant<L>(1023.0));
    auto m = L::unit_mantissa(t);
    const auto high = L::ge(m, constant<L>(scalar::sqrt2));
    m = L::select(high, L::mul(m, constant<L>(0.5)), m);
    e = L::select(high, L::add(e, one), e);
    const auto s = L::div(L::sub(m, one), L::add(m, one));
    const auto log_m = L::mul(s, horner<L>(L::mul(s, s), atanh_poly));
    return kept_where<L>(L::fma(e, constant<L>(ln2), log_m), inside);
}

// softplus x = max(x, 0) + log1p(e), e = exp(-|x|), log1p(e) = 2 atanh(e / (2 + e)).
template <class L>
TOPOS_LANES_INLINE Result<L> softplus(typename L::V x) {
    const auto ax = L::magnitude(x);
    const auto inside = L::le(ax, constant<L>(700.0));
    const auto e = exp_of<L>(L::negate(L::select(inside, ax, constant<L>(0.0))));
    const auto s = L::div(e, L::add(constant<L>(2.0), e));
    const auto log1p_e = L::mul(s, horner<L>(L::mul(s, s), atanh_poly));
    const auto positive = L::select(L::gt(x, constant<L>(0.0)), x, constant<L>(0.0));
    return kept_where<L>(L::add(positive, log1p_e), inside);
}

}  // namespace topos::detail::lanes::shortcut
