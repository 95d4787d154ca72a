// Exact math: the project's own transcendental functions, so that the reference interpreter gets
// the same bits in every build and on every platform. Invariants: only IEEE-754 +, -, *, /, fma,
// comparisons and bit operations are used (never the platform libm, x87 or long double); the code
// must be compiled with -ffp-contract=off, without fast-math, in round-to-nearest. Constants are
// hex literals (exactly representable). Float overloads evaluate the double version and round once.
// Every NaN result is the canonical quiet NaN. Method and measured accuracy: docs/exact-math.md.
#pragma once

#include <array>
#include <bit>
#include <cfloat>
#include <cmath>  // std::fma only
#include <cstddef>
#include <cstdint>
#include <limits>

namespace topos::exact {

namespace detail {

static_assert(std::numeric_limits<double>::is_iec559 && std::numeric_limits<float>::is_iec559);
static_assert(FLT_EVAL_METHOD == 0, "exact math needs strict double evaluation (no x87)");

inline constexpr double infinity = std::numeric_limits<double>::infinity();
inline constexpr double quiet_nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr std::uint64_t sign_mask = 0x8000'0000'0000'0000;
inline constexpr std::uint64_t mantissa_mask = 0x000f'ffff'ffff'ffff;
inline constexpr std::uint64_t implicit_bit = 0x0010'0000'0000'0000;
inline constexpr std::uint64_t exponent_of_one = 0x3ff0'0000'0000'0000;

inline std::uint64_t to_bits(double x) {
    return std::bit_cast<std::uint64_t>(x);
}

inline double from_bits(std::uint64_t b) {
    return std::bit_cast<double>(b);
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

// ---- Polynomials: minimax (Remez exchange in mpmath, coefficients rounded to double one at a
// time with the rest refitted); the generating script is in docs/exact-math.md.

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

// 2 atanh(s) = 2s + (2/3) s^3 + s^5 p(s^2) on s^2 <= 0.02945; |error of p| < 2^-55.3.
inline constexpr std::array<double, 8> log_poly{0x1.999999999999ap-2,
                                                0x1.24924924922fdp-2,
                                                0x1.c71c71c74cc23p-3,
                                                0x1.745d173ca7cfcp-3,
                                                0x1.3b13a9e2998afp-3,
                                                0x1.11154ca50ae5fp-3,
                                                0x1.e01a4c2cf40adp-4,
                                                0x1.da9d1a472dc53p-4};

// sin(r) = r + r^3 s(r^2), cos(r) = 1 - r^2/2 + r^4 c(r^2) on |r| <= pi/4 + 2^-10; the errors
// they add to the results are below 2^-60.9 (relative).
inline constexpr std::array<double, 7> sin_poly{-0x1.5555555555555p-3,
                                                0x1.111111111101fp-7,
                                                -0x1.a01a019fe8e02p-13,
                                                0x1.71de3a10e2d64p-19,
                                                -0x1.ae63f9223f761p-26,
                                                0x1.60e6ad7d9f4ebp-33,
                                                -0x1.8dd41afd0f744p-41};
inline constexpr std::array<double, 6> cos_poly{0x1.5555555555555p-5,
                                                -0x1.6c16c16c168c7p-10,
                                                0x1.a01a019f37447p-16,
                                                -0x1.27e4fa0175388p-22,
                                                0x1.1eeb5630e02b1p-29,
                                                -0x1.9072445b50f4dp-37};

// erf(u) = u (1 + q(u^2)) on u^2 <= 0.5626; relative error of 1 + q below 2^-56.3.
inline constexpr std::array<double, 11> erf_poly{0x1.06eba8214db69p-3,
                                                 -0x1.812746b0379ffp-2,
                                                 0x1.ce2f21a0436dap-4,
                                                 -0x1.b82ce312a5b6dp-6,
                                                 0x1.565bcd0f1b1cbp-8,
                                                 -0x1.c02db33cb0b04p-11,
                                                 0x1.f9a2ec61bec7fp-14,
                                                 -0x1.f4ca333afa288p-17,
                                                 0x1.b93f4b377f9e7p-20,
                                                 -0x1.577f9fc8795d1p-23,
                                                 0x1.9095c8f85a8cbp-27};

// exp(u^2) erfc(u) = p(u - centre) on [0.75, 2] (centre 1.375) and [2, 3] (centre 2.5), and
// u exp(u^2) erfc(u) = p(1/u^2 - centre) on [3, 28]; the constant terms are pairs (c[0] + lo).
// Relative errors below 2^-59.1, 2^-60.2 and 2^-59.7.
inline constexpr double erfc_near_centre = 0x1.6p+0;
inline constexpr double erfc_near_lo = -0x1.b67db268d2e1dp-57;
inline constexpr std::array<double, 19> erfc_near_poly{0x1.5f88f52f3c76bp-2,
                                                       -0x1.797a639d8129dp-3,
                                                       0x1.701342cbcea78p-4,
                                                       -0x1.4bcdb9d9083cep-5,
                                                       0x1.17eba60d322d3p-6,
                                                       -0x1.bdf24bccb06d3p-8,
                                                       0x1.51ab9ffcc0e1ap-9,
                                                       -0x1.e8ae68afb0a15p-11,
                                                       0x1.535f580c8da2bp-12,
                                                       -0x1.c5fa6cfc296f1p-14,
                                                       0x1.254ecefcef43dp-15,
                                                       -0x1.6f05b2863ff8dp-17,
                                                       0x1.bdb7d2825f081p-19,
                                                       -0x1.0735fe63872ffp-20,
                                                       0x1.2e9b077d7b89ep-22,
                                                       -0x1.5109e7cfbee58p-24,
                                                       0x1.734c4e40dfe56p-26,
                                                       -0x1.c1682a575f891p-28,
                                                       0x1.c422b79536b31p-30};
inline constexpr double erfc_mid_centre = 0x1.4p+1;
inline constexpr double erfc_mid_lo = -0x1.a66ec42e7de2bp-58;
inline constexpr std::array<double, 16> erfc_mid_poly{0x1.afbb3f3b7343bp-3,
                                                      -0x1.3086d7f01ac85p-4,
                                                      0x1.98958a7a8e4b1p-6,
                                                      -0x1.0632076809e61p-7,
                                                      0x1.435c04e2057b1p-9,
                                                      -0x1.809ce8ab459d9p-11,
                                                      0x1.ba8a67d465665p-13,
                                                      -0x1.edd423a80a503p-15,
                                                      0x1.0bcba0d4a7195p-16,
                                                      -0x1.1ad108e44ffe2p-18,
                                                      0x1.235128ba37d7ep-20,
                                                      -0x1.25168071a0924p-22,
                                                      0x1.2000ae3e2dfb6p-24,
                                                      -0x1.155b25db7309dp-26,
                                                      0x1.14741443613d2p-28,
                                                      -0x1.0146221f25f38p-30};
inline constexpr double erfc_far_centre = 0x1.cc55e9f0e8331p-5;
inline constexpr double erfc_far_lo = 0x1.e147115f9d9cdp-57;
inline constexpr std::array<double, 19> erfc_far_poly{0x1.195a2612cbb84p-1,
                                                      -0x1.f0bb4a910f7f3p-3,
                                                      0x1.2da110c4050fcp-2,
                                                      -0x1.1a8f03981c8a1p-1,
                                                      0x1.5987713ef16f9p+0,
                                                      -0x1.fd9521dd37612p+1,
                                                      0x1.b0f3870241ad3p+3,
                                                      -0x1.9b8ccb28e1f5cp+5,
                                                      0x1.ace1e75752be2p+7,
                                                      -0x1.e2d52fe75bb63p+9,
                                                      0x1.2254c40cc088ap+12,
                                                      -0x1.70d52ea113498p+14,
                                                      0x1.ed059621645a3p+16,
                                                      -0x1.6743288acfc52p+19,
                                                      0x1.0ac36aa77f31dp+22,
                                                      -0x1.0ed334dac59a9p+24,
                                                      0x1.6f61a20768560p+26,
                                                      -0x1.e9ca34bbc4ea2p+30,
                                                      0x1.b629265c6328fp+33};

// ---- Constants (pairs hi + lo carry about 106 bits).
inline constexpr double ln2_hi = 0x1.62e42fefa38p-1;  // 42 bits: k * ln2_hi is exact, |k| < 2^11
inline constexpr double ln2_lo = 0x1.ef35793c7673p-45;
inline constexpr double inv_ln2 = 0x1.71547652b82fep+0;
inline constexpr double sqrt2 = 0x1.6a09e667f3bcdp+0;
inline constexpr double two_thirds_hi = 0x1.5555555555555p-1;
inline constexpr double two_thirds_lo = 0x1.5555555555555p-55;
inline constexpr double two_over_sqrt_pi_hi = 0x1.20dd750429b6dp+0;
inline constexpr double two_over_sqrt_pi_lo = 0x1.1ae3a914fed8p-56;
inline constexpr double inv_sqrt2_hi = 0x1.6a09e667f3bcdp-1;
inline constexpr double inv_sqrt2_lo = -0x1.bdd3413b26456p-55;
inline constexpr double two_over_pi = 0x1.45f306dc9c883p-1;
inline constexpr double pio2_hi = 0x1.921fb54442d18p+0;
inline constexpr double pio2_lo = 0x1.1a62633145c07p-54;
// pi/2 in four parts; the first three have 33 significant bits, so k * part is exact for k < 2^20.
inline constexpr double pio2_1 = 0x1.921fb544p+0;
inline constexpr double pio2_2 = 0x1.0b4611a6p-34;
inline constexpr double pio2_3 = 0x1.3198a2ep-69;
inline constexpr double pio2_4 = 0x1.b839a252049c1p-104;
// The first 1280 bits of 2/pi, most significant first.
inline constexpr std::array<std::uint32_t, 40> two_over_pi_bits{
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d};

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

// ---- sin and cos: x = k pi/2 + r with |r| <= pi/4, then a polynomial for sin or cos of r.

struct AngleReduction {
    double r;
    double r_lo;
    unsigned quadrant;  // k mod 4
};

// Cody-Waite reduction for 0 <= x < 2^20 with pi/2 carried to 157 bits.
inline AngleReduction reduce_medium(double x) {
    const double k = round_to_integer(x * two_over_pi);
    const double a = x - k * pio2_1;  // exact
    const Pair b = two_sum(a, -k * pio2_2);
    const Pair c = two_sum(b.hi, -k * pio2_3);
    const Pair r = fast_two_sum(c.hi, (b.lo + c.lo) - k * pio2_4);
    return {r.hi, r.lo, static_cast<unsigned>(k) & 3u};
}

// 32 bits of 2/pi starting at bit j: bit 1 is the first after the binary point, bits j <= 0 are 0.
inline std::uint32_t two_over_pi_word(int j) {
    if (j <= -31) {
        return 0;
    }
    if (j < 1) {
        return two_over_pi_bits[0] >> (1 - j);
    }
    const auto word = static_cast<std::size_t>((j - 1) / 32);
    const int shift = (j - 1) % 32;
    const std::uint64_t pair =
        (std::uint64_t{two_over_pi_bits[word]} << 32) | two_over_pi_bits[word + 1];
    return static_cast<std::uint32_t>(pair >> (32 - shift));
}

// Payne-Hanek reduction for finite x >= 2^20: x = mant 2^e, and x 2/pi mod 4 is computed exactly
// as mant times a 224-bit window of 2/pi (integer arithmetic), leaving 192 fraction bits.
inline AngleReduction reduce_large(double x) {
    constexpr int limbs = 7;
    const std::uint64_t b = to_bits(x);
    const int e = static_cast<int>(b >> 52) - 1075;
    const std::uint64_t mant = (b & mantissa_mask) | implicit_bit;
    // window[i] holds bits e - 31 + 32 (limbs - 1 - i) onwards; earlier bits add multiples of 4.
    std::array<std::uint32_t, limbs> window{};
    for (int i = 0; i < limbs; ++i) {
        window[static_cast<std::size_t>(i)] = two_over_pi_word(e - 31 + 32 * (limbs - 1 - i));
    }
    // product = mant * window, little-endian 32-bit limbs; its value is product * 2^(-32 * 6).
    std::array<std::uint32_t, limbs + 2> product{};
    for (std::size_t half = 0; half < 2; ++half) {
        const std::uint64_t m = (mant >> (32 * half)) & 0xffff'ffff;
        std::uint64_t carry = 0;
        for (std::size_t i = 0; i < limbs; ++i) {
            const std::uint64_t t = m * window[i] + product[i + half] + carry;
            product[i + half] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
        product[limbs + half] = static_cast<std::uint32_t>(carry);
    }
    unsigned quadrant = product[limbs - 1] & 3u;
    const bool round_up = (product[limbs - 2] >> 31) != 0;  // fraction >= 1/2: use fraction - 1
    if (round_up) {
        std::uint64_t carry = 1;
        for (std::size_t i = 0; i + 1 < limbs; ++i) {  // two's complement of the fraction
            const std::uint64_t t = std::uint64_t{~product[i]} + carry;
            product[i] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
        quadrant = (quadrant + 1u) & 3u;
    }
    Pair f{0.0, 0.0};
    for (int i = limbs - 2; i >= 0; --i) {
        const double limb = static_cast<double>(product[static_cast<std::size_t>(i)]);
        const Pair s = two_sum(f.hi, limb * pow2(-32 * (limbs - 1 - i)));
        f = {s.hi, f.lo + s.lo};
    }
    f = fast_two_sum(f.hi, f.lo);
    const Pair angle = mul(f, {pio2_hi, pio2_lo});
    const Pair r = fast_two_sum(angle.hi, angle.lo);
    return {negate_if(round_up, r.hi), negate_if(round_up, r.lo), quadrant};
}

inline AngleReduction reduce_angle(double x) {
    return x < 0x1p20 ? reduce_medium(x) : reduce_large(x);
}

// sin(r + r_lo) and cos(r + r_lo) for |r| <= pi/4 + 2^-10, |r_lo| <= 2^-52 |r|.
inline double sin_kernel(double r, double r_lo) {
    const double z = r * r;
    return r + (r * z * horner(z, sin_poly) + r_lo * (1.0 - 0.5 * z));
}

inline double cos_kernel(double r, double r_lo) {
    const Pair z = two_prod(r, r);
    const double half = 0.5 * z.hi;
    const double w = 1.0 - half;
    const double w_error = (1.0 - w) - half;  // exact
    return w + (w_error + (z.hi * z.hi * horner(z.hi, cos_poly) - (0.5 * z.lo + r * r_lo)));
}

// ---- erf and erfc.

// erf(u) = u (1 + q(u^2)) as a pair, for 0 <= u < 0.75 and z = u^2 as a pair.
inline Pair erf_small(double u, Pair z) {
    const double q = horner(z.hi, erf_poly) + z.lo * erf_poly[1];
    const Pair p = two_prod(u, q);
    const Pair s = two_sum(u, p.hi);
    return fast_two_sum(s.hi, s.lo + p.lo);
}

// erfc(u + u_lo) = 2^k (hi + lo) for 0.75 <= u <= 28, |u_lo| <= 2^-52 u, z = (u + u_lo)^2 as a
// pair: exp(-z) times the smooth factor exp(u^2) erfc(u) from the piecewise polynomials.
inline Scaled erfc_kernel(double u, double u_lo, Pair z) {
    Pair r;  // exp(u^2) erfc(u)
    if (u < 3.0) {
        const bool near = u < 2.0;
        const double h = u - (near ? erfc_near_centre : erfc_mid_centre);  // exact
        r = near ? horner_pair(h, erfc_near_poly, erfc_near_lo)
                 : horner_pair(h, erfc_mid_poly, erfc_mid_lo);
    } else {
        const double h = 1.0 / z.hi - erfc_far_centre;
        const Pair g = horner_pair(h, erfc_far_poly, erfc_far_lo);  // u r
        r.hi = g.hi / u;
        r.lo = (std::fma(-r.hi, u, g.hi) + g.lo) / u;
    }
    // First order in u_lo, with r' = 2 u r - 2 / sqrt(pi).
    r.lo += u_lo * (2.0 * u * r.hi - two_over_sqrt_pi_hi);
    const Scaled e = exp_kernel(-z.hi, -z.lo);
    const Pair p = mul({e.hi, e.lo}, r);
    return {p.hi, p.lo, e.k};
}

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

// ---- Public functions, double.

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

// sin and cos: exact reduction for every finite x (Cody-Waite below 2^20, Payne-Hanek above).
inline double sin(double x) {
    const double ax = detail::magnitude(x);
    if (!(ax < detail::infinity)) {
        return detail::quiet_nan;
    }
    if (ax < 0x1p-26) {
        return x;
    }
    const detail::AngleReduction a = detail::reduce_angle(ax);
    double v =
        (a.quadrant & 1u) != 0 ? detail::cos_kernel(a.r, a.r_lo) : detail::sin_kernel(a.r, a.r_lo);
    v = detail::negate_if((a.quadrant & 2u) != 0, v);
    return detail::negate_if(detail::sign_bit(x), v);
}

inline double cos(double x) {
    const double ax = detail::magnitude(x);
    if (!(ax < detail::infinity)) {
        return detail::quiet_nan;
    }
    if (ax < 0x1p-27) {
        return 1.0;
    }
    const detail::AngleReduction a = detail::reduce_angle(ax);
    const double v =
        (a.quadrant & 1u) != 0 ? detail::sin_kernel(a.r, a.r_lo) : detail::cos_kernel(a.r, a.r_lo);
    return detail::negate_if(((a.quadrant + 1u) & 2u) != 0, v);
}

// erf: a polynomial below 0.75, 1 - erfc above, 1 from 6 on (erfc(6) < 2^-55).
inline double erf(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    const double u = detail::magnitude(x);
    if (u < 0x1p-28) {
        return std::fma(x, detail::two_over_sqrt_pi_hi, x * detail::two_over_sqrt_pi_lo);
    }
    double r = 1.0;
    if (u < 0.75) {
        const detail::Pair e = detail::erf_small(u, detail::two_prod(u, u));
        r = e.hi + e.lo;
    } else if (u < 6.0) {
        const detail::Scaled c = detail::erfc_kernel(u, 0.0, detail::two_prod(u, u));
        const double s = detail::pow2(c.k);
        const detail::Pair d = detail::two_sum(1.0, -c.hi * s);
        r = d.hi + (d.lo - c.lo * s);
    }
    return detail::negate_if(detail::sign_bit(x), r);
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

// ---- Public functions, float: the double version rounded once (nearly always correctly rounded).

inline float exp(float x) {
    return static_cast<float>(exact::exp(static_cast<double>(x)));
}

inline float expm1(float x) {
    return static_cast<float>(exact::expm1(static_cast<double>(x)));
}

inline float log(float x) {
    return static_cast<float>(exact::log(static_cast<double>(x)));
}

inline float log1p(float x) {
    return static_cast<float>(exact::log1p(static_cast<double>(x)));
}

inline float tanh(float x) {
    return static_cast<float>(exact::tanh(static_cast<double>(x)));
}

inline float sigmoid(float x) {
    return static_cast<float>(exact::sigmoid(static_cast<double>(x)));
}

inline float softplus(float x) {
    return static_cast<float>(exact::softplus(static_cast<double>(x)));
}

inline float sin(float x) {
    return static_cast<float>(exact::sin(static_cast<double>(x)));
}

inline float cos(float x) {
    return static_cast<float>(exact::cos(static_cast<double>(x)));
}

inline float erf(float x) {
    return static_cast<float>(exact::erf(static_cast<double>(x)));
}

inline float gelu(float x) {
    return static_cast<float>(exact::gelu(static_cast<double>(x)));
}

inline float pow(float x, float y) {
    return static_cast<float>(exact::pow(static_cast<double>(x), static_cast<double>(y)));
}

}  // namespace topos::exact
