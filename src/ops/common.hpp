// Pieces the op rows share: the elementwise shape rules, flat elementwise loops,
// and the outer x axis x inner view of a shape that the layout kernels walk.
#pragma once

#include "ops/op_info.hpp"

#include <cstddef>
#include <numbers>
#include <span>

namespace topos::detail {

inline constexpr double two_over_sqrt_pi = 2 * std::numbers::inv_sqrtpi;
inline constexpr double inverse_sqrt_two = 1 / std::numbers::sqrt2;
inline constexpr double inverse_sqrt_two_pi = std::numbers::inv_sqrtpi / std::numbers::sqrt2;

// The shape rule of unary elementwise operations: the operand's shape, and no
// attributes.
Shape same_shape_unary(const ShapeCheck& check);

// Both operands of one shape, which is the result's.
Shape equal_shapes(const ShapeCheck& check);

// The shape rule of binary elementwise operations: equal shapes, no attributes.
Shape same_shape_binary(const ShapeCheck& check);

template <Element T, class F>
void unary_map(std::span<const View<T>> operands, T* out, F f) {
    const T* x = operands[0].data;
    const std::size_t count = operands[0].shape->elements();
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = f(x[i]);
    }
}

template <Element T, class F>
void binary_map(std::span<const View<T>> operands, T* out, F f) {
    const T* x = operands[0].data;
    const T* y = operands[1].data;
    const std::size_t count = operands[0].shape->elements();
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = f(x[i], y[i]);
    }
}

// A shape seen as [outer, extent, inner] around one axis.
struct AxisSplit {
    std::size_t outer;
    std::size_t extent;
    std::size_t inner;
};

AxisSplit split_at(const Shape& shape, std::size_t axis);

}  // namespace topos::detail
