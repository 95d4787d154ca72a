// Exact math, the exp family: exp and expm1, and the pair kernels (exp_kernel, exp_pair,
// expm1_pair) that erf, pow and the activations build on. x = k ln2 + r with |r| <= ln2/2 and
// ln2 in two parts (k * ln2_hi exact); exp(x) = 2^k (1 + expm1(r)), the sum carried as a pair and
// scaled by 2^k last, so that an underflowing result is rounded only once from the double result.
#pragma once

#include "core/exact_math/basics.hpp"

namespace topos::exact {

namespace detail {

// expm1(r) = r + r^2/2 + r^3 q(r) on |r| <= 0.3467; |error of q| < 2^-55.6.
inline constexpr std::array<double, 10> expm1_poly{0x1.5555555555556p-3,
                                                   0x1.5555555555556p-5,
                                                   0x1.1111111110708p-7,
                                                   0x1.6c16c16c1609cp-10,
                                                   0x1.a01a01a905112p-13,
                                                   0x1.a01a01a7b6c67p-16,
                                                   0x1.71de0a30dd800p-19,
                                                   0x1.27e4d93ecad75p-22,
                                                   0x1.af3f240a34cb3p-26,
                                                   0x1.1f76adbbfbd74p-29};

inline constexpr double inv_ln2 = 0x1.71547652b82fep+0;

// ---- exp family: x = k ln2 + r, |r| <= ln2/2, exp(x) = 2^k (1 + expm1(r)).

struct Ln2Reduction {
    double r;
    double r_lo;
    int k;
};

// x + x_lo = k ln2 + r + r_lo, for |x| < 1100.
inline Ln2Reduction reduce_ln2(double x, double x_lo) {
    const double k = round_to_integer(x * inv_ln2);
    const double a = x - k * ln2_hi;  // exact: k * ln2_hi is exact and close to x
    const Pair r = two_sum(a, x_lo - k * ln2_lo);
    return {r.hi, r.lo, static_cast<int>(k)};
}

// expm1(r + r_lo) for |r| <= 0.3467, |r_lo| <= 2^-52 |r|, as a normalised pair.
inline Pair expm1_kernel(double r, double r_lo) {
    const Pair r2 = two_prod(r, r);
    const Pair s = two_sum(r, 0.5 * r2.hi);
    const double tail =
        s.lo + 0.5 * r2.lo + std::fma(r_lo, r, r_lo) + r * r2.hi * horner(r, expm1_poly);
    return fast_two_sum(s.hi, tail);
}

// exp(x + x_lo) = 2^k (hi + lo) for |x| < 1100.
inline Scaled exp_kernel(double x, double x_lo) {
    const Ln2Reduction red = reduce_ln2(x, x_lo);
    const Pair m = expm1_kernel(red.r, red.r_lo);
    const Pair y = two_sum(1.0, m.hi);
    return {y.hi, y.lo + m.lo, red.k};
}

// exp(x) as a pair, for |x| <= 45.
inline Pair exp_pair(double x) {
    const Scaled e = exp_kernel(x, 0.0);
    const Pair y = fast_two_sum(e.hi, e.lo);
    const double s = pow2(e.k);
    return {y.hi * s, y.lo * s};
}

// expm1(x) = 2^k (1 + m) - 1 as a pair, for |x| <= 45 (so |k| <= 65).
inline Pair expm1_pair(double x) {
    const Ln2Reduction red = reduce_ln2(x, 0.0);
    const Pair m = expm1_kernel(red.r, red.r_lo);
    if (red.k == 0) {
        return m;
    }
    const double s = pow2(red.k);
    double a = s - 1.0;  // exact for |k| <= 53
    double a_lo = 0.0;
    if (red.k > 53) {
        a = s;
        a_lo = -1.0;
    } else if (red.k < -53) {
        a = -1.0;
        a_lo = s;
    }
    const Pair sum = two_sum(a, s * m.hi);
    return fast_two_sum(sum.hi, sum.lo + (s * m.lo + a_lo));
}

}  // namespace detail

inline double exp(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    if (x > 709.79) {
        return detail::infinity;
    }
    if (x < -745.2) {
        return 0.0;
    }
    const detail::Scaled e = detail::exp_kernel(x, 0.0);
    return detail::scale_pow2(e.hi + e.lo, e.k);
}

inline double expm1(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    if (detail::magnitude(x) < 0x1p-54) {
        return x;  // also keeps the sign of zero
    }
    if (x > 45.0) {
        return exact::exp(x);  // the -1 is below half an ulp
    }
    if (x < -45.0) {
        return -1.0;
    }
    const detail::Pair r = detail::expm1_pair(x);
    return r.hi + r.lo;
}

// Float: the double version rounded once (nearly always correctly rounded).
inline float exp(float x) {
    return static_cast<float>(exact::exp(static_cast<double>(x)));
}

inline float expm1(float x) {
    return static_cast<float>(exact::expm1(static_cast<double>(x)));
}

}  // namespace topos::exact
