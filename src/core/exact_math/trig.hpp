// Exact math, sin and cos: x = k pi/2 + r with |r| <= pi/4 and r carried as a pair, by Cody-Waite
// (pi/2 in four parts, 157 bits) below 2^20 and by Payne-Hanek (x times a 224-bit window of a
// 1280-bit table of 2/pi, in integer arithmetic) from 2^20 on. The reduction is exact for every
// finite double, so accuracy does not degrade with |x| and a finite input never gives NaN.
#pragma once

#include "core/exact_math/basics.hpp"

namespace topos::exact {

namespace detail {

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

}  // namespace detail

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

// Float: the double version rounded once (nearly always correctly rounded).
inline float sin(float x) {
    return static_cast<float>(exact::sin(static_cast<double>(x)));
}

inline float cos(float x) {
    return static_cast<float>(exact::cos(static_cast<double>(x)));
}

}  // namespace topos::exact
