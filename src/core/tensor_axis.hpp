// A tensor seen along one axis: `outer` blocks before it, its `extent`, and
// `inner` contiguous elements per position, so position p of block o starts at
// (o * extent + p) * inner. Shared by the layout methods and the reductions.
#pragma once

#include <topos/core/shape.hpp>

#include <cstddef>

namespace topos::detail {

struct AxisBlocks {
    std::size_t outer = 1;
    std::size_t extent = 1;
    std::size_t inner = 1;
};

// Throws ShapeError naming `method`, the axis and the shape unless axis < rank.
void require_tensor_axis(const char* method, std::size_t axis, const Shape& shape);

// Precondition: axis < shape.rank().
AxisBlocks blocks_along(const Shape& shape, std::size_t axis);

}  // namespace topos::detail
