// StableHLO's number literals (src/hlo/literals.hpp): a decimal literal must
// read back, through the C library's parser as MLIR reads it (decimal to
// double, then to float), to the very bits it was written from; values with no
// decimal spelling are written as their IEEE bits; a dense tensor is one
// literal when every element has the same bits, nested brackets otherwise.
#include "hlo/literals.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topos::detail {
namespace {

bool reads_back(const std::string& text, float value) {
    const float parsed = static_cast<float>(std::strtod(text.c_str(), nullptr));
    return std::bit_cast<std::uint32_t>(parsed) == std::bit_cast<std::uint32_t>(value);
}

bool reads_back(const std::string& text, double value) {
    const double parsed = std::strtod(text.c_str(), nullptr);
    return std::bit_cast<std::uint64_t>(parsed) == std::bit_cast<std::uint64_t>(value);
}

bool is_hex_bits(const std::string& text) {
    return text.rfind("0x", 0) == 0;
}

// A decimal literal reads back to `value`; a hexadecimal one spells its bits.
template <class T, class Bits>
void expect_exact_literal(T value) {
    const std::string text = real_literal(value);
    if (is_hex_bits(text)) {
        EXPECT_EQ(std::strtoull(text.c_str() + 2, nullptr, 16), std::bit_cast<Bits>(value)) << text;
        return;
    }
    EXPECT_NE(text.find('.'), std::string::npos) << text << ": MLIR needs a decimal point";
    EXPECT_TRUE(reads_back(text, value)) << text;
}

TEST(HloLiterals, EveryFloatReadsBackToItsBits) {
    std::mt19937 generator(7);
    std::uniform_int_distribution<std::uint32_t> bits;
    for (int i = 0; i < 20000; ++i) {
        const float value = std::bit_cast<float>(bits(generator));
        expect_exact_literal<float, std::uint32_t>(value);
    }
    for (const float value : {0.0f,
                              -0.0f,
                              1.0f,
                              1e-5f,
                              std::numeric_limits<float>::denorm_min(),
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::min()}) {
        expect_exact_literal<float, std::uint32_t>(value);
    }
}

TEST(HloLiterals, EveryDoubleReadsBackToItsBits) {
    std::mt19937_64 generator(11);
    for (int i = 0; i < 20000; ++i) {
        const double value = std::bit_cast<double>(generator());
        expect_exact_literal<double, std::uint64_t>(value);
    }
    for (const double value : {0.0, -0.0, 0.1, 1e-300, std::numeric_limits<double>::denorm_min()}) {
        expect_exact_literal<double, std::uint64_t>(value);
    }
}

TEST(HloLiterals, InfinitiesAndNansAreWrittenAsTheirBits) {
    EXPECT_EQ(real_literal(std::numeric_limits<float>::infinity()), "0x7F800000");
    EXPECT_EQ(real_literal(-std::numeric_limits<float>::infinity()), "0xFF800000");
    EXPECT_EQ(real_literal(std::numeric_limits<double>::infinity()), "0x7FF0000000000000");
    EXPECT_EQ(real_literal(std::bit_cast<float>(std::uint32_t{0x7FC00001})), "0x7FC00001");
}

TEST(HloLiterals, ASplatIsOneLiteralAndATensorNestsByAxis) {
    const std::vector<float> same = {2.5f, 2.5f, 2.5f, 2.5f};
    EXPECT_EQ(dense_literal<float>(same, Shape{2, 2}), "2.5");
    const std::vector<float> grid = {1, 2, 3, 4, 5, 6};
    EXPECT_EQ(dense_literal<float>(grid, Shape{2, 3}), "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]");
    const std::vector<double> zeros = {0.0, -0.0};
    EXPECT_EQ(dense_literal<double>(zeros, Shape{2}), "[0.0, -0.0]") << "-0 is not a splat of +0";
    EXPECT_EQ(dense_literal<double>({}, Shape{0, 3}), "");
}

}  // namespace
}  // namespace topos::detail
