// topos::bf16: conversions from float and double round once to the nearest,
// ties to even (checked against the midpoints between neighbours, computed
// exactly in double, never against the conversion itself); every bf16 widens
// exactly and reads back from its text, which is the shortest that does; NaN
// stays NaN; comparisons and limits are float's.
#include <topos/core/bf16.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>

namespace topos {
namespace {

float float_of_bits(std::uint32_t bits) {
    float value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

double value_of(std::uint16_t bits) {
    return static_cast<double>(float_of_bits(static_cast<std::uint32_t>(bits) << 16U));
}

bool is_nan(bf16 value) {
    return (value.bits() & 0x7fffU) > 0x7f80U;
}

// The nearest bf16 to a finite `x`, by the midpoints between neighbours: every
// bf16 and every midpoint between two is exact in double, so each comparison is.
std::uint16_t nearest_bits(double x) {
    const std::uint16_t sign = std::signbit(x) ? 0x8000U : 0U;
    const double magnitude = std::fabs(x);
    std::uint16_t below = 0;  // the largest magnitude at most |x|, searched by bits
    for (std::uint16_t step = 0x4000; step != 0; step >>= 1U) {
        const auto candidate = static_cast<std::uint16_t>(below | step);
        if (candidate <= 0x7f80U && value_of(candidate) <= magnitude) {
            below = candidate;
        }
    }
    if (below == 0x7f80U) {
        return sign | below;
    }
    const auto above = static_cast<std::uint16_t>(below + 1);
    const double low = value_of(below);
    const double high = above == 0x7f80U ? std::ldexp(1.0, 128) : value_of(above);
    const double midpoint = (low + high) / 2;
    if (magnitude < midpoint) {
        return sign | below;
    }
    if (magnitude > midpoint) {
        return sign | above;
    }
    return sign | ((below & 1U) == 0 ? below : above);
}

TEST(Bf16, FromFloatRoundsToTheNearestTiesToEven) {
    // Every upper half with the lower halves that decide the rounding.
    for (std::uint32_t upper = 0; upper < 0x10000U; ++upper) {
        for (const std::uint32_t lower : {0x0000U, 0x0001U, 0x7fffU, 0x8000U, 0x8001U, 0xffffU}) {
            const float x = float_of_bits((upper << 16U) | lower);
            if (std::isnan(x)) {
                continue;
            }
            ASSERT_EQ(bf16(x).bits(), nearest_bits(x)) << std::hex << ((upper << 16U) | lower);
        }
    }
}

TEST(Bf16, FromFloatAgreesWithTheMidpointsOnRandomFloats) {
    std::mt19937 generator(7);
    for (int i = 0; i < 200000; ++i) {
        const float x = float_of_bits(static_cast<std::uint32_t>(generator()));
        if (!std::isnan(x)) {
            ASSERT_EQ(bf16(x).bits(), nearest_bits(x)) << x;
        }
    }
}

TEST(Bf16, FromDoubleRoundsOnceNotThroughFloat) {
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7; 2^-30 past it rounds up.
    // Through float the 2^-30 is lost first and the tie goes to even, 1.
    const double just_past_a_tie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
    EXPECT_EQ(bf16(static_cast<float>(just_past_a_tie)).bits(), 0x3f80U);
    EXPECT_EQ(bf16(just_past_a_tie).bits(), 0x3f81U);
    std::mt19937_64 generator(11);
    std::uniform_real_distribution<double> exponent(-140.0, 130.0);
    for (int i = 0; i < 200000; ++i) {
        const double x = std::exp2(exponent(generator)) * (i % 2 == 0 ? 1 : -1);
        ASSERT_EQ(bf16(x).bits(), nearest_bits(x)) << x;
    }
}

TEST(Bf16, FromAnIntegerRoundsTiesToEven) {
    EXPECT_EQ(static_cast<float>(bf16(3)), 3.0F);
    EXPECT_EQ(static_cast<float>(bf16(257)), 256.0F);  // halfway: 256's last bit is even
    EXPECT_EQ(static_cast<float>(bf16(259)), 260.0F);
    EXPECT_EQ(static_cast<float>(bf16(-1000000)), -999424.0F);
}

TEST(Bf16, WidensExactlyAndNarrowsBackToItself) {
    for (std::uint32_t bits = 0; bits < 0x10000U; ++bits) {
        const bf16 value = bf16::from_bits(static_cast<std::uint16_t>(bits));
        if (is_nan(value)) {
            continue;
        }
        ASSERT_EQ(static_cast<double>(static_cast<float>(value)), value_of(value.bits()));
        ASSERT_EQ(bf16(static_cast<float>(value)).bits(), bits);
        ASSERT_EQ(bf16(static_cast<double>(value)).bits(), bits);
    }
}

TEST(Bf16, PastTheLargestByHalfAStepIsInfinity) {
    const float largest = static_cast<float>(std::numeric_limits<bf16>::max());
    EXPECT_EQ(largest, 3.3895313892515355e38F);
    EXPECT_EQ(bf16(float_of_bits(0x7f7f7fffU)).bits(), 0x7f7fU);  // below the midpoint
    EXPECT_EQ(bf16(float_of_bits(0x7f7f8000U)).bits(), 0x7f80U);  // the midpoint, odd below
    EXPECT_EQ(bf16(std::numeric_limits<float>::max()).bits(), 0x7f80U);
    EXPECT_EQ(bf16(-std::numeric_limits<float>::max()).bits(), 0xff80U);
    EXPECT_EQ(bf16(1e300).bits(), 0x7f80U);
    EXPECT_EQ(bf16(std::numeric_limits<float>::infinity()).bits(), 0x7f80U);
}

TEST(Bf16, NaNStaysNaNMadeQuietWithItsSign) {
    const bf16 signalling(float_of_bits(0x7f800001U));  // payload only in the bits cut off
    EXPECT_TRUE(is_nan(signalling));
    EXPECT_EQ(signalling.bits() & 0x0040U, 0x0040U);
    const bf16 negative(float_of_bits(0xffc00000U));
    EXPECT_TRUE(is_nan(negative));
    EXPECT_EQ(negative.bits() & 0x8000U, 0x8000U);
    EXPECT_TRUE(is_nan(bf16(std::nan(""))));
    EXPECT_TRUE(std::isnan(static_cast<float>(bf16(std::nanf("")))));
}

TEST(Bf16, ComparesAsFloatsDo) {
    const bf16 nan = std::numeric_limits<bf16>::quiet_NaN();
    EXPECT_FALSE(nan == nan);
    EXPECT_TRUE(nan != nan);
    EXPECT_FALSE(nan < bf16(1.0F) || nan > bf16(1.0F));
    EXPECT_TRUE(bf16(-0.0F) == bf16(0.0F));
    EXPECT_NE(bf16(-0.0F).bits(), bf16(0.0F).bits());
    EXPECT_TRUE(bf16(1.0F) < bf16(1.0078125F));
    EXPECT_TRUE(bf16(-2.0F) <= bf16(-2.0F));
}

TEST(Bf16, LimitsAreTheExtremesOfTheFormat) {
    using limits = std::numeric_limits<bf16>;
    EXPECT_EQ(static_cast<float>(limits::epsilon()), std::ldexp(1.0F, -7));
    EXPECT_EQ(static_cast<float>(bf16::from_bits(0x3f81)) - 1.0F,
              static_cast<float>(limits::epsilon()));
    EXPECT_EQ(static_cast<float>(limits::min()), std::numeric_limits<float>::min());
    EXPECT_EQ(limits::max().bits() + 1, limits::infinity().bits());
    EXPECT_EQ(static_cast<float>(limits::lowest()), -static_cast<float>(limits::max()));
    EXPECT_EQ(static_cast<float>(limits::denorm_min()), std::ldexp(1.0F, -133));
    EXPECT_TRUE(is_nan(limits::quiet_NaN()));
    EXPECT_TRUE(is_nan(limits::signaling_NaN()));
    EXPECT_EQ(limits::digits, 8);
}

// `x` in scientific notation with `digits` significant digits, as printf's %e writes it.
std::string scientific(double x, int digits) {
    std::ostringstream out;
    out.precision(digits - 1);
    out << std::scientific << x;
    return out.str();
}

TEST(Bf16, TextReadsBackAndIsNoLongerThanTheFewestDigitsThatDo) {
    for (std::uint32_t bits = 0; bits < 0x10000U; ++bits) {
        const bf16 value = bf16::from_bits(static_cast<std::uint16_t>(bits));
        const std::string text = to_string(value);
        if (is_nan(value)) {
            ASSERT_EQ(text.substr(text.find('n')), "nan");
            continue;
        }
        ASSERT_EQ(bf16(std::stod(text)).bits(), bits) << text;
        const double x = static_cast<double>(value);
        if (x == 0 || std::isinf(x)) {
            continue;
        }
        int fewest = 1;
        while (bf16(std::stod(scientific(x, fewest))).bits() != bits) {
            ++fewest;
        }
        const std::string shortest = scientific(x, fewest);
        ASSERT_LE(text.size(), shortest.size()) << text << " vs " << shortest;
        if (text.find('e') != std::string::npos) {
            ASSERT_EQ(text, shortest);
        }
    }
}

TEST(Bf16, TextIsLaidOutAsFloatsAre) {
    EXPECT_EQ(to_string(bf16(1.5F)), "1.5");
    EXPECT_EQ(to_string(bf16(0.1F)), "0.1");
    EXPECT_EQ(to_string(bf16(-0.0F)), "-0");
    EXPECT_EQ(to_string(bf16(100.0F)), "100");
    EXPECT_EQ(to_string(bf16(123456.0F)), "123392");
    EXPECT_EQ(to_string(std::numeric_limits<bf16>::max()), "3.39e+38");
    EXPECT_EQ(to_string(std::numeric_limits<bf16>::infinity()), "inf");
    EXPECT_EQ(to_string(-std::numeric_limits<bf16>::infinity()), "-inf");
    std::ostringstream out;
    out << bf16(0.333F);
    EXPECT_EQ(out.str(), "0.332");  // 0.33203125
}

}  // namespace
}  // namespace topos
