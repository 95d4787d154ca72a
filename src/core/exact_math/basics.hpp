// Exact math, the shared basics: bit helpers (no ldexp/frexp), double-double pairs built from the
// error-free transformations two_sum, fast_two_sum and two_prod, Horner's rule with fused steps,
// and the constants used by several families. Invariants: only IEEE-754 +, -, *, /, fma,
// comparisons and bit operations; compiled with -ffp-contract=off, without fast-math, in
// round-to-nearest; constants are hex literals. Every family header of core/exact_math/ builds on
// this one.
#pragma once

#include "core/bit_cast.hpp"

#include <array>
#include <cfloat>
#include <cmath>  // std::fma only
#include <cstddef>
#include <cstdint>
#include <limits>

namespace topos::exact::detail {

static_assert(std::numeric_limits<double>::is_iec559 && std::numeric_limits<float>::is_iec559);
static_assert(FLT_EVAL_METHOD == 0, "exact math needs strict double evaluation (no x87)");

inline constexpr double infinity = std::numeric_limits<double>::infinity();
inline constexpr double quiet_nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr std::uint64_t sign_mask = 0x8000'0000'0000'0000;
inline constexpr std::uint64_t mantissa_mask = 0x000f'ffff'ffff'ffff;
inline constexpr std::uint64_t implicit_bit = 0x0010'0000'0000'0000;
inline constexpr std::uint64_t exponent_of_one = 0x3ff0'0000'0000'0000;

inline std::uint64_t to_bits(double x) {
    return topos::detail::bit_cast<std::uint64_t>(x);
}

inline double from_bits(std::uint64_t b) {
    return topos::detail::bit_cast<double>(b);
}

inline bool is_nan(double x) {
    return x != x;
}

inline bool sign_bit(double x) {
    return (to_bits(x) & sign_mask) != 0;
}

inline double magnitude(double x) {
    return from_bits(to_bits(x) & ~sign_mask);
}

inline double negate_if(bool negate, double x) {
    return negate ? -x : x;
}

// 2^k for -1022 <= k <= 1023.
inline double pow2(int k) {
    return from_bits(static_cast<std::uint64_t>(k + 1023) << 52);
}

// y * 2^k with a single rounding, for |y| in [2^-60, 2^60] and -2044 <= k <= 2046.
inline double scale_pow2(double y, int k) {
    if (k > 1023) {
        return y * 0x1p1023 * pow2(k - 1023);
    }
    if (k < -1022) {
        return y * 0x1p-969 * pow2(k + 969);  // the first product stays normal, so it is exact
    }
    return y * pow2(k);
}

// (v + shifter) - shifter rounds |v| < 2^51 to the nearest integer (ties to even).
inline double round_to_integer(double v) {
    constexpr double shifter = 0x1.8p52;
    return (v + shifter) - shifter;
}

// Unevaluated sum hi + lo (a double-double), and the error-free transformations that make them.
struct Pair {
    double hi;
    double lo;
};

inline Pair two_sum(double a, double b) {
    const double s = a + b;
    const double b_part = s - a;
    return {s, (a - (s - b_part)) + (b - b_part)};
}

// Exact when |a| >= |b| (or a == 0).
inline Pair fast_two_sum(double a, double b) {
    const double s = a + b;
    return {s, b - (s - a)};
}

inline Pair two_prod(double a, double b) {
    const double p = a * b;
    return {p, std::fma(a, b, -p)};
}

// (a.hi + a.lo) (b.hi + b.lo) to about 2^-104 relative (the product of the low parts is dropped).
inline Pair mul(Pair a, Pair b) {
    Pair p = two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return p;
}

// (n.hi + n.lo) / (d.hi + d.lo) with one final rounding and a tiny residual error.
inline double divide(Pair n, Pair d) {
    const double q = n.hi / d.hi;
    const double remainder = std::fma(-q, d.hi, n.hi) + (n.lo - q * d.lo);
    return q + remainder / d.hi;
}

// sum_{i >= first} c[i] x^(i - first), by Horner's rule with fused steps.
template <std::size_t N>
inline double horner(double x, const std::array<double, N>& c, std::size_t first = 0) {
    double acc = c[N - 1];
    for (std::size_t i = N - 1; i > first; --i) {
        acc = std::fma(acc, x, c[i - 1]);
    }
    return acc;
}

// c[0] + c0_lo + x (c[1] + x (c[2] + ...)) as a pair; the last two steps are error-free, so the
// result is accurate to about 2^-53 |x c[1] / c[0]| relative, not just to an ulp of itself.
template <std::size_t N>
inline Pair horner_pair(double x, const std::array<double, N>& c, double c0_lo) {
    const Pair inner = two_sum(c[1], x * horner(x, c, 2));
    Pair p = two_prod(x, inner.hi);
    p.lo += x * inner.lo;
    const Pair s = two_sum(c[0], p.hi);
    return fast_two_sum(s.hi, s.lo + (p.lo + c0_lo));
}

// (hi + lo) * 2^k: lets results that underflow be rounded only once, at the very end.
struct Scaled {
    double hi;
    double lo;
    int k;
};

// Polynomials in the family headers are minimax (Remez exchange in mpmath, coefficients rounded to
// double one at a time with the rest refitted); the generating script is in docs/exact-math.md.

// ---- Shared constants (pairs hi + lo carry about 106 bits).
inline constexpr double ln2_hi = 0x1.62e42fefa38p-1;  // 42 bits: k * ln2_hi is exact, |k| < 2^11
inline constexpr double ln2_lo = 0x1.ef35793c7673p-45;

}  // namespace topos::exact::detail
