// Exact math, the activation functions: tanh, sigmoid, softplus, gelu and silu, each built from
// the exp, log and erf pair kernels so that nothing cancels and nothing overflows: they saturate
// (or underflow gracefully) instead of giving NaN, and round once at the end (twice, to double and
// then to the subnormal grid, for subnormal results).
#pragma once

#include "core/exact_math/basics.hpp"
#include "core/exact_math/erf.hpp"
#include "core/exact_math/exp.hpp"
#include "core/exact_math/log.hpp"

namespace topos::exact {

namespace detail {

inline constexpr double inv_sqrt2_hi = 0x1.6a09e667f3bcdp-1;
inline constexpr double inv_sqrt2_lo = -0x1.bdd3413b26456p-55;

}  // namespace detail

// tanh(x) = e / (e + 2) with e = expm1(2|x|) carried as a pair.
inline double tanh(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    const double ax = detail::magnitude(x);
    if (ax < 0x1p-27) {
        return x;
    }
    double r = 1.0;  // tanh rounds to 1 from 19.1 on
    if (ax < 22.0) {
        const detail::Pair e = detail::expm1_pair(2.0 * ax);
        const detail::Pair d = detail::two_sum(e.hi, 2.0);
        r = detail::divide(e, {d.hi, d.lo + e.lo});
    }
    return detail::negate_if(detail::sign_bit(x), r);
}

// sigmoid(x) = 1 / (1 + exp(-x)) = exp(x) / (1 + exp(x)), using exp(-|x|) <= 1 as a pair.
inline double sigmoid(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    if (x > 40.0) {
        return 1.0;
    }
    if (x < -40.0) {
        return exact::exp(x);  // relative difference below 2^-57
    }
    const detail::Pair e = detail::exp_pair(-detail::magnitude(x));
    const detail::Pair d = detail::two_sum(1.0, e.hi);
    const detail::Pair denominator{d.hi, d.lo + e.lo};
    return x >= 0.0 ? detail::divide({1.0, 0.0}, denominator) : detail::divide(e, denominator);
}

// softplus(x) = log1p(exp(x)) = max(x, 0) + log1p(exp(-|x|)).
inline double softplus(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    if (x > 40.0) {
        return x;
    }
    if (x < -40.0) {
        return exact::exp(x);  // relative difference below 2^-58
    }
    const detail::Pair e = detail::exp_pair(-detail::magnitude(x));
    const detail::Pair l = detail::log1p_kernel(e.hi, e.lo);
    if (x <= 0.0) {
        return l.hi + l.lo;
    }
    const detail::Pair s = detail::two_sum(x, l.hi);
    return s.hi + (s.lo + l.lo);
}

// gelu(x) = x Phi(x) with Phi(x) = (1 + erf(x / sqrt(2))) / 2, written so that nothing cancels:
// below |x| = 1.06 as x/2 + (z / sqrt(2)) (1 + q(z)) with z = x^2 / 2 (the erf polynomial), above
// it through erfc(|x| / sqrt(2)), which also keeps the tiny negative tail accurate.
inline double gelu(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    if (x > 40.0) {
        return x;
    }
    if (x < -40.0) {
        return -0.0;  // underflows (also gelu(-inf), the limit)
    }
    if (detail::magnitude(x) < 0x1p-60) {
        return 0.5 * x;  // also keeps the sign of zero
    }
    const detail::Pair x2 = detail::two_prod(x, x);
    const detail::Pair z{0.5 * x2.hi, 0.5 * x2.lo};
    if (z.hi < 0.5625) {
        const double q = detail::horner(z.hi, detail::erf_poly) + z.lo * detail::erf_poly[1];
        const detail::Pair one_q = detail::two_sum(1.0, q);
        const detail::Pair t =
            detail::mul(detail::mul(z, {detail::inv_sqrt2_hi, detail::inv_sqrt2_lo}), one_q);
        const detail::Pair s = detail::two_sum(0.5 * x, t.hi);
        return s.hi + (s.lo + t.lo);
    }
    const double ax = detail::magnitude(x);
    const double u = ax * detail::inv_sqrt2_hi;
    const double u_lo = std::fma(ax, detail::inv_sqrt2_hi, -u) + ax * detail::inv_sqrt2_lo;
    const detail::Scaled c = detail::erfc_kernel(u, u_lo, z);
    if (x < 0.0) {  // x erfc(u) / 2, scaled last so that an underflow rounds once
        return detail::scale_pow2(0.5 * std::fma(x, c.hi, x * c.lo), c.k);
    }
    if (c.k < -60) {
        return x;
    }
    const double half = detail::pow2(c.k - 1);
    const detail::Pair d = detail::two_sum(1.0, -c.hi * half);
    return std::fma(x, d.hi, x * (d.lo - c.lo * half));
}

// silu(x) = x sigmoid(x) = x / (1 + exp(-x)), with e = exp(-|x|) <= 1 as a pair and one corrected
// division: x / (1 + e) for x > 0, x e / (1 + e) for x < 0, so neither side ever overflows. Below
// -45 it is x exp(x) (relative difference below 2^-64), scaled by 2^k last so that the tail
// underflows gradually, rounding once from the double result, and reaches -0 at -751.76. Special
// cases: silu(+inf) = +inf and silu(x) = x from 40 on; silu(-inf) = -0 (the limit); silu(+-0) =
// +-0; NaN gives the canonical NaN. Below 2^-54 in magnitude it is x/2 + x^2/4, rounded as such.
inline double silu(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    if (x > 40.0) {
        return x;  // relative difference below 2^-57: x is the rounded value
    }
    if (x < -800.0) {
        return -0.0;  // the magnitude is below 2^-1140 (also silu(-inf), the limit)
    }
    if (detail::magnitude(x) < 0x1p-54) {
        // x/2 is the value rounded, except when it is halfway between two subnormals: x^2/4 > 0
        // then decides, towards +inf. Keeps the sign of zero.
        double h = 0.5 * x;
        if (2.0 * h < x) {
            h += 0x1p-1074;
        }
        return h;
    }
    if (x < -45.0) {
        const detail::Scaled e = detail::exp_kernel(x, 0.0);
        return detail::scale_pow2(std::fma(x, e.hi, x * e.lo), e.k);
    }
    const detail::Pair e = detail::exp_pair(-detail::magnitude(x));
    const detail::Pair d = detail::two_sum(1.0, e.hi);
    const detail::Pair denominator{d.hi, d.lo + e.lo};
    if (x > 0.0) {
        return detail::divide({x, 0.0}, denominator);
    }
    detail::Pair numerator = detail::two_prod(x, e.hi);
    numerator.lo += x * e.lo;
    return detail::divide(numerator, denominator);
}

// Float: the double version rounded once (nearly always correctly rounded).
inline float tanh(float x) {
    return static_cast<float>(exact::tanh(static_cast<double>(x)));
}

inline float sigmoid(float x) {
    return static_cast<float>(exact::sigmoid(static_cast<double>(x)));
}

inline float softplus(float x) {
    return static_cast<float>(exact::softplus(static_cast<double>(x)));
}

inline float gelu(float x) {
    return static_cast<float>(exact::gelu(static_cast<double>(x)));
}

inline float silu(float x) {
    return static_cast<float>(exact::silu(static_cast<double>(x)));
}

}  // namespace topos::exact
