// The window arithmetic Unfold and Fold share.
#pragma once

#include "ops/op_info.hpp"

#include <cstddef>
#include <string>

namespace topos::detail {

// How many windows of `size` elements, `dilation` apart, fit in `extent` positions
// when consecutive windows start `step` apart.
inline std::size_t window_count(std::size_t extent,
                                std::size_t size,
                                std::size_t step,
                                std::size_t dilation) {
    const std::size_t span = dilation * (size - 1) + 1;
    return (extent - span) / step + 1;
}

inline void check_window(const ShapeCheck& check,
                         std::size_t size,
                         std::size_t step,
                         std::size_t dilation,
                         std::size_t extent) {
    check.require(size >= 1 && step >= 1 && dilation >= 1,
                  "window size, step and dilation must all be at least 1");
    const std::size_t span =
        check.sum(check.product(dilation, size - 1, "the window's span"), 1, "the window's span");
    check.require(span <= extent,
                  "a window spans " + std::to_string(span) + " positions but the axis has only " +
                      std::to_string(extent) + "; pad the axis or use a smaller window");
}

}  // namespace topos::detail
