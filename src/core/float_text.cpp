// Floating-point text through the C library, as std::to_chars writes it and
// std::from_chars reads it (see float_text.hpp). snprintf's %e gives the
// nearest decimal of each length and strtod and strtof round correctly, so the
// shortest decimal that reads back is found by lengthening one digit at a time.
#include "core/float_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace topos::detail {
namespace {

// digits * 10^exponent, with digits < 10^17.
struct Decimal {
    std::uint64_t digits = 0;
    int exponent = 0;
};

std::uint64_t power_of_ten(int n) {
    std::uint64_t power = 1;
    for (int i = 0; i < n; ++i) {
        power *= 10;
    }
    return power;
}

template <class T>
T read_back(Decimal decimal) {
    char text[48];
    std::snprintf(text, sizeof text, "%" PRIu64 "e%d", decimal.digits, decimal.exponent);
    if constexpr (sizeof(T) == sizeof(float)) {
        return std::strtof(text, nullptr);
    } else {
        return std::strtod(text, nullptr);
    }
}

// The decimal of `count` significant digits nearest to `magnitude` (> 0).
Decimal nearest_decimal(double magnitude, int count) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*e", count - 1, magnitude);
    Decimal decimal;
    const char* p = text;
    for (; *p != 'e'; ++p) {
        if (*p != '.') {
            decimal.digits = decimal.digits * 10 + static_cast<std::uint64_t>(*p - '0');
        }
    }
    decimal.exponent = static_cast<int>(std::strtol(p + 1, nullptr, 10)) - (count - 1);
    return decimal;
}

// The next decimal of `count` significant digits above (up) or below `decimal`.
Decimal next_decimal(Decimal decimal, int count, bool up) {
    const std::uint64_t lowest = power_of_ten(count - 1);
    if (up) {
        if (++decimal.digits == 10 * lowest) {
            decimal.digits = lowest;
            ++decimal.exponent;
        }
    } else if (--decimal.digits < lowest) {
        decimal.digits = 10 * lowest - 1;
        --decimal.exponent;
    }
    return decimal;
}

// The shortest decimal that reads back as `magnitude` (finite, > 0) in T; of
// two, the nearer. At each length only the nearest decimal and the next one on
// the other side of `magnitude` can read back (the rounding interval is wider
// above a power of two than below it, so the nearest may miss where the other
// does not).
template <class T>
Decimal shortest_decimal(T magnitude) {
    const int most = std::numeric_limits<T>::max_digits10;
    for (int count = 1; count < most; ++count) {
        const Decimal nearest = nearest_decimal(magnitude, count);
        const T back = read_back<T>(nearest);
        if (back == magnitude) {
            return nearest;
        }
        const Decimal other = next_decimal(nearest, count, back < magnitude);
        if (read_back<T>(other) == magnitude) {
            return other;
        }
    }
    return nearest_decimal(magnitude, most);
}

std::to_chars_result copy_out(char* first, char* last, const std::string& text) {
    if (text.size() > static_cast<std::size_t>(last - first)) {
        return {last, std::errc::value_too_large};
    }
    return {std::copy(text.begin(), text.end(), first), std::errc{}};
}

template <class T>
std::to_chars_result shortest(char* first, char* last, T value) {
    std::string text = std::signbit(value) ? "-" : "";
    const T magnitude = std::fabs(value);
    if (std::isnan(value)) {
        return copy_out(first, last, text + "nan");
    }
    if (std::isinf(value)) {
        return copy_out(first, last, text + "inf");
    }
    if (magnitude == 0) {
        return copy_out(first, last, text + "0");
    }
    Decimal decimal = shortest_decimal(magnitude);
    while (decimal.digits % 10 == 0) {
        decimal.digits /= 10;
        ++decimal.exponent;
    }
    const std::string digits = std::to_string(decimal.digits);
    const int count = static_cast<int>(digits.size());
    const int point = count + decimal.exponent;  // digits before the decimal point
    // Scientific: d.ddde+XX, at least two exponent digits.
    char exponent[16];
    std::snprintf(exponent, sizeof exponent, "e%+03d", point - 1);
    std::string scientific = digits.substr(0, 1);
    if (count > 1) {
        scientific.append(".").append(digits, 1);
    }
    scientific.append(exponent);
    std::string fixed;
    if (decimal.exponent > 0) {
        // A whole number written out: its exact digits, as printf's %.0f gives them.
        char whole[400];
        std::snprintf(whole, sizeof whole, "%.0f", static_cast<double>(magnitude));
        fixed = whole;
    } else if (point > 0) {
        fixed = digits.substr(0, static_cast<std::size_t>(point));
        if (point < count) {
            fixed.append(".").append(digits, static_cast<std::size_t>(point));
        }
    } else {
        fixed = "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    }
    return copy_out(first, last, text + (fixed.size() <= scientific.size() ? fixed : scientific));
}

}  // namespace

std::to_chars_result to_chars_by_c_library(char* first, char* last, float value) {
    return shortest(first, last, value);
}

std::to_chars_result to_chars_by_c_library(char* first, char* last, double value) {
    return shortest(first, last, value);
}

std::to_chars_result to_chars_by_c_library(
    char* first, char* last, double value, std::chars_format format, int precision) {
    const char* pattern = format == std::chars_format::fixed        ? "%.*f"
                          : format == std::chars_format::scientific ? "%.*e"
                          : format == std::chars_format::hex        ? "%.*a"
                                                                    : "%.*g";
    const int length = std::snprintf(nullptr, 0, pattern, precision, value);
    std::string text(static_cast<std::size_t>(length) + 1, '\0');
    std::snprintf(text.data(), text.size(), pattern, precision, value);
    text.pop_back();
    if (format == std::chars_format::hex) {  // std::to_chars writes no 0x
        text.erase(text.find('x') - 1, 2);
    }
    return copy_out(first, last, text);
}

std::from_chars_result from_chars_by_c_library(const char* first, const char* last, double& value) {
    // std::from_chars takes no leading space and no '+', and reads "0x1p3" as 0.
    const char* start = first != last && *first == '-' ? first + 1 : first;
    if (start == last || *start == '+' || *start == ' ' || (*start >= '\t' && *start <= '\r')) {
        return {first, std::errc::invalid_argument};
    }
    std::string text(first, last);
    if (last - start >= 2 && start[0] == '0' && (start[1] == 'x' || start[1] == 'X')) {
        text.resize(static_cast<std::size_t>(start - first) + 1);
    }
    char* end = nullptr;
    errno = 0;
    const double parsed = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) {
        return {first, std::errc::invalid_argument};
    }
    const char* stop = first + (end - text.c_str());
    if (errno == ERANGE && (parsed == 0 || std::isinf(parsed))) {
        return {stop, std::errc::result_out_of_range};
    }
    // Any payload of "nan(...)" is dropped, as std::from_chars drops it.
    value = std::isnan(parsed) ? std::copysign(std::numeric_limits<double>::quiet_NaN(), parsed)
                               : parsed;
    return {stop, std::errc{}};
}

}  // namespace topos::detail
