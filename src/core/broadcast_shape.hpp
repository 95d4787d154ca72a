// numpy's broadcasting rule for two shapes, the one that eager tensor
// arithmetic (tensor_broadcast_shape) and the recorded operators both apply:
// aligned from the last axis, extents equal or one of them 1, which stretches
// (to 0 as well); a 0 never stretches. Each caller words its own ShapeError
// around the conflict.
#pragma once

#include <topos/core/shape.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace topos::detail {

// Where two shapes fail to broadcast: the axis of the result, and both extents there.
struct BroadcastConflict {
    std::size_t axis;
    std::size_t a;
    std::size_t b;
};

// The numpy-style common shape of two shapes: aligned from the last axis, equal
// extents stay and an extent of 1 takes the other's (0 included). Sets
// `conflict` and returns nothing where an axis conflicts; throws ShapeTooLarge
// when the common shape holds too many elements.
std::optional<Shape> common_shape(const Shape& a, const Shape& b, BroadcastConflict& conflict);

// What a conflict means and how to fix it, for the caller's message: "the
// shapes do not broadcast (axis 1 of the result: 3 vs 4); aligned from the
// last axis, extents must be equal or 1".
std::string broadcast_advice(const BroadcastConflict& conflict);

}  // namespace topos::detail
