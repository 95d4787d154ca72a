// Number literals for StableHLO constants (see literals.hpp).
#include "hlo/literals.hpp"

#include "core/bit_cast.hpp"
#include "core/float_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace topos::detail {
namespace {

template <class Bits>
std::string hex_bits(Bits bits) {
    char digits[2 * sizeof(Bits)];
    std::fill(std::begin(digits), std::end(digits), '0');
    char buffer[2 * sizeof(Bits)];
    const auto [end, error] = std::to_chars(std::begin(buffer), std::end(buffer), bits, 16);
    (void)error;
    const std::size_t length = static_cast<std::size_t>(end - buffer);
    std::copy(buffer, end, std::end(digits) - static_cast<std::ptrdiff_t>(length));
    std::string text = "0x";
    for (char digit : digits) {
        text += static_cast<char>(digit >= 'a' ? digit - 'a' + 'A' : digit);
    }
    return text;
}

// Whether two reals have the same bits (NaNs by payload, -0 apart from +0).
bool same_bits(float a, float b) {
    return detail::bit_cast<std::uint32_t>(a) == detail::bit_cast<std::uint32_t>(b);
}

bool same_bits(double a, double b) {
    return detail::bit_cast<std::uint64_t>(a) == detail::bit_cast<std::uint64_t>(b);
}

bool same_bits(bf16 a, bf16 b) {
    return a.bits() == b.bits();
}

// MLIR's lexer reads `1e-05` as an integer and an identifier: a float literal
// needs a decimal point.
std::string with_point(std::string text) {
    if (text.find('.') != std::string::npos) {
        return text;
    }
    const std::size_t exponent = text.find('e');
    return exponent == std::string::npos ? text + ".0" : text.insert(exponent, ".0");
}

template <class T>
std::string shortest(T value) {
    char buffer[64];
    const auto [end, error] = detail::to_chars(std::begin(buffer), std::end(buffer), value);
    (void)error;
    return with_point(std::string(buffer, end));
}

}  // namespace

std::string real_literal(float value) {
    if (!std::isfinite(value)) {
        return hex_bits(detail::bit_cast<std::uint32_t>(value));
    }
    std::string text = shortest(value);
    // MLIR parses the decimal as a double and rounds that to float.
    const float parsed = static_cast<float>(std::strtod(text.c_str(), nullptr));
    if (detail::bit_cast<std::uint32_t>(parsed) != detail::bit_cast<std::uint32_t>(value)) {
        return hex_bits(detail::bit_cast<std::uint32_t>(value));
    }
    return text;
}

std::string real_literal(bf16 value) {
    if (!std::isfinite(static_cast<float>(value))) {
        return hex_bits(value.bits());
    }
    std::string text = with_point(to_string(value));
    // MLIR parses the decimal as a double and rounds that to bf16.
    if (bf16(std::strtod(text.c_str(), nullptr)).bits() != value.bits()) {
        return hex_bits(value.bits());
    }
    return text;
}

std::string real_literal(double value) {
    if (!std::isfinite(value)) {
        return hex_bits(detail::bit_cast<std::uint64_t>(value));
    }
    return shortest(value);
}

template <class T>
std::string dense_literal(std::span<const T> values, const Shape& shape) {
    if (values.empty()) {
        return {};
    }
    const bool splat = std::all_of(
        values.begin(), values.end(), [&](T value) { return same_bits(value, values.front()); });
    if (shape.rank() == 0 || splat) {
        return real_literal(values.front());
    }
    // Row-major: before an element, one `[` per innermost axis whose index is 0;
    // after it, one `]` per axis whose index wraps.
    const std::span<const std::size_t> extents = shape.extents();
    const std::size_t rank = extents.size();
    std::vector<std::size_t> index(rank, 0);
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) {
            text += ", ";
        }
        std::size_t starting = 0;
        while (starting < rank && index[rank - 1 - starting] == 0) {
            ++starting;
        }
        text += std::string(starting, '[') + real_literal(values[i]);
        for (std::size_t axis = rank; axis-- > 0;) {
            if (++index[axis] < extents[axis]) {
                break;
            }
            index[axis] = 0;
            text += ']';
        }
    }
    return text;
}

template std::string dense_literal(std::span<const float>, const Shape&);
template std::string dense_literal(std::span<const double>, const Shape&);
template std::string dense_literal(std::span<const bf16>, const Shape&);

}  // namespace topos::detail
