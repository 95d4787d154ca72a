// What the single-axis reductions share: the shape rule (the axis is removed)
// and the striped summation order documented in sum.cpp. A reduction over
// several axes is recorded as single-axis reductions, last axis first, so it
// has one documented order too.
#pragma once

#include "kernels/striped_sum.hpp"
#include "ops/common.hpp"

namespace topos::detail {

// The reduced shape: operand 0 without the attribute's axis.
Shape reduce_axis_shape(const ShapeCheck& check);

}  // namespace topos::detail
