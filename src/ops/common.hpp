// Pieces the op rows share: the elementwise shape rules and the elementwise
// maps over a row's operands (on the loops of kernels/elementwise.hpp).
#pragma once

#include "core/arithmetic.hpp"
#include "kernels/bf16_rows.hpp"
#include "kernels/elementwise.hpp"
#include "ops/op_info.hpp"

#include <algorithm>
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

// out[i] = f(x[i]), f taking and returning Arithmetic<T>: for bf16, each
// operand widened and each result rounded once, element by element in the
// vector lanes, which are the bits of float's kernel on the widened operands.
template <Element T, class F>
void unary_map(std::span<const View<T>> operands, T* out, F f) {
    const T* x = operands[0].data;
    const std::size_t count = operands[0].shape->elements();
    if constexpr (std::same_as<T, bf16>) {
        elementwise(count, out, [x, f](std::size_t i) {
            return rounded_to_bf16(f(widened_from_bf16(x[i])));
        });
    } else {
        elementwise(count, out, [x, f](std::size_t i) { return f(x[i]); });
    }
}

// out[i] = f(x[i], y[i]), as unary_map.
template <Element T, class F>
void binary_map(std::span<const View<T>> operands, T* out, F f) {
    const T* x = operands[0].data;
    const T* y = operands[1].data;
    const std::size_t count = operands[0].shape->elements();
    if constexpr (std::same_as<T, bf16>) {
        elementwise(count, out, [x, y, f](std::size_t i) {
            return rounded_to_bf16(f(widened_from_bf16(x[i]), widened_from_bf16(y[i])));
        });
    } else {
        elementwise(count, out, [x, y, f](std::size_t i) { return f(x[i], y[i]); });
    }
}

}  // namespace topos::detail
