// Exact math, pow: exp(y log x) with log x as a pair (relative error about 2^-67), y log x as an
// exact product pair and exp of that pair; within 1 ulp for all x and y, exact when the result is
// representable. Special cases follow IEEE 754 / C99 Annex F; every NaN result is canonical.
#pragma once

#include "core/exact_math/basics.hpp"
#include "core/exact_math/exp.hpp"
#include "core/exact_math/log.hpp"

namespace topos::exact {

namespace detail {

// Integer class of a finite y: -1 not an integer, 0 even, 1 odd.
inline int integer_parity(double y) {
    const double ay = magnitude(y);
    if (ay >= 0x1p53) {
        return 0;
    }
    if (ay < 1.0) {
        return ay == 0.0 ? 0 : -1;
    }
    const std::uint64_t b = to_bits(ay);
    const int shift = 1075 - static_cast<int>(b >> 52);  // ay = mant 2^-shift, 0 <= shift <= 52
    const std::uint64_t mant = (b & mantissa_mask) | implicit_bit;
    if ((mant & ((std::uint64_t{1} << shift) - 1)) != 0) {
        return -1;
    }
    return static_cast<int>((mant >> shift) & 1u);
}

}  // namespace detail

// pow(x, y) = exp(y log x) with log x carried to about 2^-67 and y log x as a pair; special cases
// follow IEEE 754 / C99 Annex F (pow(x, 0) = 1 and pow(1, y) = 1 even for NaN; a negative finite
// x with non-integer y gives NaN).
inline double pow(double x, double y) {
    if (y == 0.0 || x == 1.0) {
        return 1.0;
    }
    if (detail::is_nan(x) || detail::is_nan(y)) {
        return detail::quiet_nan;
    }
    const double ax = detail::magnitude(x);
    if (detail::magnitude(y) == detail::infinity) {
        if (ax == 1.0) {
            return 1.0;
        }
        return (ax > 1.0) == (y > 0.0) ? detail::infinity : 0.0;
    }
    const int parity = detail::integer_parity(y);
    const bool negative = detail::sign_bit(x) && parity == 1;
    if (ax == 0.0 || ax == detail::infinity) {
        const bool huge = (ax == 0.0) == (y < 0.0);
        return detail::negate_if(negative, huge ? detail::infinity : 0.0);
    }
    if (x < 0.0 && parity < 0) {
        return detail::quiet_nan;
    }
    const detail::Pair l = detail::log_pair(ax);
    detail::Pair p = detail::two_prod(y, l.hi);
    double r = 0.0;
    if (p.hi > 709.79) {
        r = detail::infinity;
    } else if (p.hi >= -745.2) {
        p.lo += y * l.lo;
        const detail::Scaled e = detail::exp_kernel(p.hi, p.lo);
        r = detail::scale_pow2(e.hi + e.lo, e.k);
    }
    return detail::negate_if(negative, r);
}

// Float: the double version rounded once (nearly always correctly rounded).
inline float pow(float x, float y) {
    return static_cast<float>(exact::pow(static_cast<double>(x), static_cast<double>(y)));
}

}  // namespace topos::exact
