// bf16: the bfloat16 number, a float cut to 16 bits: float's sign, its 8
// exponent bits and the top 7 of its 23 fraction bits. It has float's range
// and about 3 significant decimal digits, in half the bytes, so models are
// stored and multiplied in it.
//
//   topos::bf16 b(1.5f);                 // rounded to nearest, ties to even
//   float f = static_cast<float>(b);     // exact: every bf16 is a float
//   std::uint16_t bits = b.bits();       // 0x3fc0
//   topos::bf16::from_bits(0x3fc0);      // the same number
//
// Conversions from float and double round once to the nearest bf16, ties to
// the even one; a value past the largest bf16 (3.3895314e38) by at least half
// a step becomes an infinity of its sign; NaN stays NaN, made quiet, its sign
// kept. Comparisons are float's (NaN unordered, -0 == +0). Text is the shortest
// decimal that reads back as the same bf16 (bf16(std::stod(text))), in fixed or
// scientific notation, whichever is shorter, as std::to_chars writes floats.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <limits>
#include <string>

namespace topos {

// A bfloat16 number, named in lower case as float and double are.
class bf16 {  // NOLINT(readability-identifier-naming)
public:
    // +0.
    constexpr bf16() = default;

    // The nearest bf16 to `value`, ties to even; NaN made quiet.
    explicit bf16(float value) : bits_(round_float(value)) {}

    // The nearest bf16 to `value`, rounded once (not through float's rounding first).
    explicit bf16(double value);

    // The nearest bf16 to an integer (through double: exact below 2^53).
    template <std::integral I>

    requires(!std::same_as<I, bool>) explicit bf16(I value) : bf16(static_cast<double>(value)) {}

    // The same number as a float (exact).
    explicit operator float() const {
        const std::uint32_t widened = static_cast<std::uint32_t>(bits_) << 16U;
        float value = 0;
        std::memcpy(&value, &widened, sizeof value);
        return value;
    }

    // The same number as a double (exact).
    explicit operator double() const { return static_cast<double>(static_cast<float>(*this)); }

    // The 16 bits: sign, 8 exponent bits, 7 fraction bits.
    constexpr std::uint16_t bits() const { return bits_; }

    // The bf16 with these bits.
    static constexpr bf16 from_bits(std::uint16_t bits) {
        bf16 value;
        value.bits_ = bits;
        return value;
    }

    // The same magnitude, the sign flipped (exact; NaN stays NaN).
    friend constexpr bf16 operator-(bf16 value) {
        return from_bits(static_cast<std::uint16_t>(value.bits_ ^ 0x8000U));
    }

    // As floats compare: NaN equals nothing, -0 equals +0.
    friend bool operator==(bf16 a, bf16 b) {
        return static_cast<float>(a) == static_cast<float>(b);
    }

    // As floats order: NaN is unordered with everything.
    friend std::partial_ordering operator<=>(bf16 a, bf16 b) {
        return static_cast<float>(a) <=> static_cast<float>(b);
    }

private:
    static std::uint16_t round_float(float value) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        if ((bits & 0x7fffffffU) > 0x7f800000U) {  // NaN: keep sign and top payload, make quiet
            return static_cast<std::uint16_t>((bits >> 16U) | 0x0040U);
        }
        // Adding 0x7fff plus the kept part's lowest bit rounds to nearest, ties
        // to even; a carry out of the fraction moves into the exponent, which is
        // right, up to infinity.
        const std::uint32_t lowest_kept = (bits >> 16U) & 1U;
        return static_cast<std::uint16_t>((bits + 0x7fffU + lowest_kept) >> 16U);
    }

    std::uint16_t bits_ = 0;
};

// The shortest decimal that reads back as `value` ("1.5", "0.1", "3.39e+38",
// "nan", "-inf").
std::string to_string(bf16 value);

// Writes to_string(value).
std::ostream& operator<<(std::ostream& out, bf16 value);

}  // namespace topos

namespace std {

// bf16's limits, as std::numeric_limits<float> gives float's.
template <>
struct numeric_limits<topos::bf16> {
    // A floating-point type of radix 2 with infinities and NaNs, rounding to nearest.
    static constexpr bool is_specialized = true;
    // Signed, inexact, bounded and not modular, as float.
    static constexpr bool is_signed = true;
    // Not an integer type.
    static constexpr bool is_integer = false;
    // Rounds, so not exact.
    static constexpr bool is_exact = false;
    // Has +inf and -inf.
    static constexpr bool has_infinity = true;
    // Has quiet NaNs.
    static constexpr bool has_quiet_NaN = true;  // NOLINT(readability-identifier-naming)
    // Has signalling NaNs (their bits; no operation signals).
    static constexpr bool has_signaling_NaN = true;  // NOLINT(readability-identifier-naming)
    // Not an IEC 559 format (IEEE 754 defines no 16-bit format of float's range).
    static constexpr bool is_iec559 = false;
    // Finite values are bounded by max().
    static constexpr bool is_bounded = true;
    // Overflow goes to infinity, not around.
    static constexpr bool is_modulo = false;
    // Conversions round to nearest, ties to even.
    static constexpr std::float_round_style round_style = std::round_to_nearest;
    // The implicit bit and 7 fraction bits.
    static constexpr int digits = 8;
    // Decimal digits that survive a round trip through bf16.
    static constexpr int digits10 = 2;
    // Decimal digits that always read back as the same bf16.
    static constexpr int max_digits10 = 4;
    // Binary.
    static constexpr int radix = 2;
    // float's exponent range: the same 8 exponent bits.
    static constexpr int min_exponent = -125;
    // The smallest power of 10 that is a normal bf16.
    static constexpr int min_exponent10 = -37;
    // float's largest exponent.
    static constexpr int max_exponent = 128;
    // The largest power of 10 that is a finite bf16.
    static constexpr int max_exponent10 = 38;

    // The smallest positive normal number, 2^-126.
    static constexpr topos::bf16 min() noexcept { return topos::bf16::from_bits(0x0080); }

    // The largest finite number, 3.3895314e38.
    static constexpr topos::bf16 max() noexcept { return topos::bf16::from_bits(0x7f7f); }

    // The most negative finite number, -max().
    static constexpr topos::bf16 lowest() noexcept { return topos::bf16::from_bits(0xff7f); }

    // The step from 1 to the next bf16, 2^-7.
    static constexpr topos::bf16 epsilon() noexcept { return topos::bf16::from_bits(0x3c00); }

    // The largest rounding error in units of the last place, 0.5.
    static constexpr topos::bf16 round_error() noexcept { return topos::bf16::from_bits(0x3f00); }

    // +inf.
    static constexpr topos::bf16 infinity() noexcept { return topos::bf16::from_bits(0x7f80); }

    // The quiet NaN conversions make.
    // NOLINTNEXTLINE(readability-identifier-naming): std::numeric_limits names it
    static constexpr topos::bf16 quiet_NaN() noexcept { return topos::bf16::from_bits(0x7fc0); }

    // A signalling NaN's bits.
    // NOLINTNEXTLINE(readability-identifier-naming): std::numeric_limits names it
    static constexpr topos::bf16 signaling_NaN() noexcept { return topos::bf16::from_bits(0x7fa0); }

    // The smallest positive number, subnormal, 2^-133.
    static constexpr topos::bf16 denorm_min() noexcept { return topos::bf16::from_bits(0x0001); }
};

}  // namespace std
