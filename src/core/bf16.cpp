// bf16's conversion from double, rounded once through round-to-odd, and its
// text: the fewest significant digits that read back as the same bf16, laid
// out as std::to_chars lays out a float's shortest digits.
#include "core/float_text.hpp"
#include <topos/core/bf16.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace topos {

namespace {

// `value` rounded to a float by truncation, its last bit set when anything
// was dropped (round to odd). Float keeps 16 bits more than bf16, so rounding
// this float to bf16 rounds `value` once, never twice.
float rounded_to_odd(double value) {
    float nearest = static_cast<float>(value);
    if (std::isnan(value) || static_cast<double>(nearest) == value) {
        return nearest;
    }
    if (std::fabs(static_cast<double>(nearest)) > std::fabs(value)) {
        nearest = std::nextafter(nearest, 0.0F);
    }
    std::uint32_t bits = 0;
    std::memcpy(&bits, &nearest, sizeof bits);
    bits |= 1U;
    std::memcpy(&nearest, &bits, sizeof bits);
    return nearest;
}

bool reads_back(std::string_view text, bf16 value) {
    double read = 0;
    detail::from_chars(text.data(), text.data() + text.size(), read);
    return bf16(read).bits() == value.bits();
}

std::string written(double value, std::chars_format format, int precision) {
    std::array<char, 64> buffer{};
    const auto result =
        detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value, format, precision);
    return {buffer.data(), result.ptr};
}

}  // namespace

bf16::bf16(double value) : bits_(bf16(rounded_to_odd(value)).bits()) {}

std::string to_string(bf16 value) {
    const auto widened = static_cast<double>(value);
    if (!std::isfinite(widened) || widened == 0) {
        return written(widened, std::chars_format::general, 1);
    }
    // The fewest significant digits that read back, then the shorter of the
    // fixed and scientific layouts of those digits (fixed on a tie).
    for (int digits = 1;; ++digits) {
        const std::string scientific = written(widened, std::chars_format::scientific, digits - 1);
        if (!reads_back(scientific, value)) {
            continue;
        }
        const int exponent = std::stoi(scientific.substr(scientific.find('e') + 1));
        const int decimals = digits - 1 - exponent > 0 ? digits - 1 - exponent : 0;
        const std::string fixed = written(widened, std::chars_format::fixed, decimals);
        return fixed.size() <= scientific.size() ? fixed : scientific;
    }
}

std::ostream& operator<<(std::ostream& out, bf16 value) {
    return out << to_string(value);
}

}  // namespace topos
