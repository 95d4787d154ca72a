// Exact math, the log family: log and log1p, and the pair kernels (log_kernel, log_pair,
// log1p_kernel) that pow and softplus build on. x = 2^e m with m in [sqrt(1/2), sqrt(2)) found
// from the bits (subnormals scaled first), log(m) = 2 atanh(s) with s = (m - 1) / (m + 1) carried
// as a pair: the result is a pair with a relative error of about 2^-67.
#pragma once

#include "core/exact_math/basics.hpp"

namespace topos::exact {

namespace detail {

// 2 atanh(s) = 2s + (2/3) s^3 + s^5 p(s^2) on s^2 <= 0.02945; |error of p| < 2^-55.3.
inline constexpr std::array<double, 8> log_poly{0x1.999999999999ap-2,
                                                0x1.24924924922fdp-2,
                                                0x1.c71c71c74cc23p-3,
                                                0x1.745d173ca7cfcp-3,
                                                0x1.3b13a9e2998afp-3,
                                                0x1.11154ca50ae5fp-3,
                                                0x1.e01a4c2cf40adp-4,
                                                0x1.da9d1a472dc53p-4};

inline constexpr double sqrt2 = 0x1.6a09e667f3bcdp+0;
inline constexpr double two_thirds_hi = 0x1.5555555555555p-1;
inline constexpr double two_thirds_lo = 0x1.5555555555555p-55;

// ---- log family: x = 2^e m, m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s), s = (m-1)/(m+1).

struct LogArgument {
    int e;
    double m;
};

// Positive finite x (subnormals included) as 2^e m with m in [sqrt(1/2), sqrt(2)).
inline LogArgument split_log_argument(double x) {
    int e = 0;
    if (x < 0x1p-1022) {
        x *= 0x1p54;
        e = -54;
    }
    const std::uint64_t b = to_bits(x);
    e += static_cast<int>(b >> 52) - 1023;
    double m = from_bits((b & mantissa_mask) | exponent_of_one);
    if (m >= sqrt2) {
        m *= 0.5;
        e += 1;
    }
    return {e, m};
}

// log(2^e (1 + f + f_lo)) as a normalised pair, for 1 + f in [sqrt(1/2), sqrt(2)] and |f_lo| <=
// 2^-50. log(1 + f) = 2 atanh(s) = 2s + (2/3) s^3 + c0 s^5 + s^7 p(s^2); every term but the last
// is carried as a pair, so the relative error is about 2^-67 (the precision that pow needs).
inline Pair log_kernel(int e, double f, double f_lo) {
    Pair d = two_sum(2.0, f);  // 2 + f
    d.lo += f_lo;
    const double s = f / d.hi;  // s + s_lo = (f + f_lo) / (2 + f + f_lo)
    const double s_lo = (std::fma(-s, d.hi, f) + f_lo - s * d.lo) / d.hi;
    const Pair z = two_prod(s, s);
    const Pair s3 = mul({s, 0.0}, z);
    const Pair s5 = mul(s3, z);
    const Pair t3 = mul(s3, {two_thirds_hi, two_thirds_lo});
    const Pair t5 = mul(s5, {log_poly[0], 0.0});
    const double ek = static_cast<double>(e);
    const Pair sum1 = two_sum(ek * ln2_hi, 2.0 * s);
    const Pair sum3 = two_sum(sum1.hi, t3.hi);
    const Pair sum5 = two_sum(sum3.hi, t5.hi);
    const double slope = 2.0 * (1.0 + z.hi * (1.0 + z.hi));  // d/ds 2 atanh(s) = 2 / (1 - s^2)
    const double tail = sum1.lo + sum3.lo + sum5.lo + t3.lo + t5.lo + ek * ln2_lo + s_lo * slope +
                        s5.hi * z.hi * horner(z.hi, log_poly, 1);
    return two_sum(sum5.hi, tail);
}

// log(x) as a pair, for positive finite x.
inline Pair log_pair(double x) {
    const LogArgument a = split_log_argument(x);
    return log_kernel(a.e, a.m - 1.0, 0.0);  // m - 1 is exact
}

// log(1 + a + a_lo) as a pair, for a > -1 finite and |a_lo| <= 2^-52 |a|.
inline Pair log1p_kernel(double a, double a_lo) {
    if (a > -0.2928 && a < 0.4142) {
        return log_kernel(0, a, a_lo);
    }
    const Pair u = two_sum(1.0, a);
    const LogArgument arg = split_log_argument(u.hi);
    return log_kernel(arg.e, arg.m - 1.0, arg.m * ((u.lo + a_lo) / u.hi));
}

}  // namespace detail

inline double log(double x) {
    if (detail::is_nan(x) || x < 0.0) {
        return detail::quiet_nan;
    }
    if (x == 0.0) {
        return -detail::infinity;
    }
    if (x == detail::infinity) {
        return x;
    }
    const detail::Pair r = detail::log_pair(x);
    return r.hi + r.lo;
}

inline double log1p(double x) {
    if (detail::is_nan(x) || x < -1.0) {
        return detail::quiet_nan;
    }
    if (x == -1.0) {
        return -detail::infinity;
    }
    if (x == detail::infinity || detail::magnitude(x) < 0x1p-54) {
        return x;
    }
    const detail::Pair r = detail::log1p_kernel(x, 0.0);
    return r.hi + r.lo;
}

// Float: the double version rounded once (nearly always correctly rounded).
inline float log(float x) {
    return static_cast<float>(exact::log(static_cast<double>(x)));
}

inline float log1p(float x) {
    return static_cast<float>(exact::log1p(static_cast<double>(x)));
}

}  // namespace topos::exact
