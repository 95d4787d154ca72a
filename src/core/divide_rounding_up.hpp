// a / b rounded up, for counts of windows, tiles and strided positions. The
// textbook (a + b - 1) / b wraps around when b is near SIZE_MAX (a stride a
// recording may well give), and then counts nothing.
#pragma once

#include <cstddef>

namespace topos::detail {

constexpr std::size_t divide_rounding_up(std::size_t a, std::size_t b) {
    return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace topos::detail
