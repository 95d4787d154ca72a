// The C library's floating-point text (core/float_text.hpp), which builds
// without std::to_chars for float and double (WebAssembly) use, against the
// standard library's: the same characters for every value and format, and the
// same reading of every text.
#include "core/float_text.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topos::detail {
namespace {

template <class T>
std::string standard(T value) {
    char text[512];
    const auto result = std::to_chars(text, text + sizeof text, value);
    return {text, result.ptr};
}

template <class T>
std::string ours(T value) {
    char text[512];
    const auto result = to_chars_by_c_library(text, text + sizeof text, value);
    return {text, result.ptr};
}

std::string standard(double value, std::chars_format format, int precision) {
    char text[512];
    const auto result = std::to_chars(text, text + sizeof text, value, format, precision);
    return {text, result.ptr};
}

std::string ours(double value, std::chars_format format, int precision) {
    char text[512];
    const auto result = to_chars_by_c_library(text, text + sizeof text, value, format, precision);
    return {text, result.ptr};
}

// Random bits, powers of two with their neighbours (where the rounding
// interval is narrower below), whole numbers past 2^53, short decimals.
template <class T>
std::vector<T> values() {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    std::vector<T> values{T{0},
                          -T{0},
                          std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity(),
                          std::numeric_limits<T>::quiet_NaN(),
                          -std::numeric_limits<T>::quiet_NaN(),
                          std::numeric_limits<T>::max(),
                          std::numeric_limits<T>::denorm_min(),
                          T{1e-4},
                          T{20000},
                          T{123456792}};
    std::mt19937_64 generator(7);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t bits = generator();
        values.push_back(std::bit_cast<T>(static_cast<Bits>(bits)));
        values.push_back(static_cast<T>(bits >> (generator() % 64)));
        values.push_back(
            static_cast<T>(static_cast<std::int64_t>(generator() % 2000001) - 1000000) / T{1000});
    }
    for (int e = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
         e < std::numeric_limits<T>::max_exponent;
         ++e) {
        const T power = std::ldexp(T{1}, e);
        values.push_back(power);
        values.push_back(std::nextafter(power, T{0}));
        values.push_back(std::nextafter(power, std::numeric_limits<T>::infinity()));
    }
    return values;
}

TEST(FloatText, ShortestDoubleIsTheStandardLibrarys) {
    for (const double value : values<double>()) {
        ASSERT_EQ(ours(value), standard(value)) << std::hexfloat << value;
    }
}

TEST(FloatText, ShortestFloatIsTheStandardLibrarys) {
    for (const float value : values<float>()) {
        ASSERT_EQ(ours(value), standard(value)) << std::hexfloat << value;
    }
}

TEST(FloatText, PrecisionFormatsAreTheStandardLibrarys) {
    const std::vector<double> all = values<double>();
    for (std::size_t i = 0; i < all.size(); i += 7) {
        for (const int precision : {0, 1, 2, 4, 6, 17}) {
            for (const auto format : {std::chars_format::fixed,
                                      std::chars_format::scientific,
                                      std::chars_format::general}) {
                ASSERT_EQ(ours(all[i], format, precision), standard(all[i], format, precision))
                    << std::hexfloat << all[i] << " precision " << precision;
            }
        }
    }
}

TEST(FloatText, ReportsABufferTooSmall) {
    char text[4];
    EXPECT_EQ(to_chars_by_c_library(text, text + sizeof text, 0.125).ec,
              std::errc::value_too_large);
    EXPECT_EQ(to_chars_by_c_library(text, text + sizeof text, 1e6, std::chars_format::fixed, 2).ec,
              std::errc::value_too_large);
}

TEST(FloatText, ReadsAsTheStandardLibraryReads) {
    std::vector<std::string> texts{"",          "-",      "+1",
                                   " 1",        "1e",     "1e+",
                                   "0x1p3",     "-0x10",  "inf",
                                   "-infinity", "nan",    "nan(12)",
                                   "1e400",     "-1e400", "1e-400",
                                   "4e-324",    ".5",     "-.5e1",
                                   "1.",        "e5",     "--1",
                                   "-0",        "infx",   "1,5",
                                   "1e5.5",     "00012",  "1.7976931348623159e308"};
    for (const double value : values<double>()) {
        texts.push_back(standard(value));
    }
    for (const std::string& text : texts) {
        double expected = 12345;
        double read = 12345;
        const auto a = std::from_chars(text.data(), text.data() + text.size(), expected);
        const auto b = from_chars_by_c_library(text.data(), text.data() + text.size(), read);
        ASSERT_EQ(b.ptr, a.ptr) << '"' << text << '"';
        ASSERT_EQ(b.ec, a.ec) << '"' << text << '"';
        ASSERT_EQ(std::bit_cast<std::uint64_t>(read), std::bit_cast<std::uint64_t>(expected))
            << '"' << text << '"';
    }
}

}  // namespace
}  // namespace topos::detail
