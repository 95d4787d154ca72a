// Where a double lies against the midpoints between two floats, which decide
// its rounding to float: a double's 29 bits below a float's precision read
// 2^28 at a midpoint of its binade (those of its neighbouring binades lie at
// least 2^27 units of its last place away). Holds for doubles whose float is
// normal; a float subnormal's midpoints are fixed multiples of 2^-149.
#pragma once

#include <cstdint>
#include <cstring>

namespace topos::detail::float_midpoint {

inline constexpr std::uint64_t below_float_precision = (std::uint64_t{1} << 29) - 1;
inline constexpr std::uint64_t midpoint_pattern = std::uint64_t{1} << 28;

// How far y lies from the nearest midpoint of its binade, in units of its last place.
inline std::uint64_t units_from_midpoint(double y) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &y, sizeof bits);
    const std::uint64_t low = bits & below_float_precision;
    return low > midpoint_pattern ? low - midpoint_pattern : midpoint_pattern - low;
}

}  // namespace topos::detail::float_midpoint
