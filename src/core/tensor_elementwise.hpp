// The one broadcasting rule of tensor arithmetic and comparisons, numpy's, as
// the recorded operators apply it: aligned from the last axis, extents equal or
// one of them 1, which stretches (to 0 as well); a 0 never stretches. Kept in
// one place so that arithmetic and comparisons accept exactly the same shapes.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <array>
#include <cstddef>
#include <span>

namespace topos::detail {

// The common shape of two operands of tensor `operation` ("addition", ...);
// throws ShapeError naming the operation, both shapes and the conflicting
// axis of the result when they do not broadcast, or when the common shape
// would hold more than Shape::max_elements elements.
Shape tensor_broadcast_shape(const Shape& a, const Shape& b, const char* operation);

// For each axis of `result`, the step in elements that moving one position
// along it takes through `operand` (which broadcasts to `result`): its
// row-major stride, or 0 where the operand has extent 1 or lacks the axis.
std::array<std::size_t, Shape::max_rank> broadcast_steps(const Shape& operand, const Shape& result);

template <TensorElement T, class Op>
Tensor<T> broadcast_elementwise(const Tensor<T>& a, const Tensor<T>& b, const char* name, Op op) {
    const T* x = a.data().data();
    const T* y = b.data().data();
    if (a.shape() == b.shape()) {
        return Tensor<T>::generate(a.shape(), [&](std::span<T> out) {
            for (std::size_t i = 0; i < out.size(); ++i) {
                out[i] = op(x[i], y[i]);
            }
        });
    }
    const Shape shape = tensor_broadcast_shape(a.shape(), b.shape(), name);
    const auto step_a = broadcast_steps(a.shape(), shape);
    const auto step_b = broadcast_steps(b.shape(), shape);
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        if (out.empty()) {
            return;
        }
        // Rows along the last axis; an odometer over the axes before it
        // carries the two operands' offsets.
        const std::size_t last = shape.rank() - 1;
        const std::size_t row = shape[last];
        std::array<std::size_t, Shape::max_rank> position{};
        std::size_t at_a = 0;
        std::size_t at_b = 0;
        for (std::size_t start = 0; start < out.size(); start += row) {
            for (std::size_t i = 0; i < row; ++i) {
                out[start + i] = op(x[at_a + i * step_a[last]], y[at_b + i * step_b[last]]);
            }
            for (std::size_t axis = last; axis-- > 0;) {
                at_a += step_a[axis];
                at_b += step_b[axis];
                if (++position[axis] < shape[axis]) {
                    break;
                }
                at_a -= step_a[axis] * shape[axis];
                at_b -= step_b[axis] * shape[axis];
                position[axis] = 0;
            }
        }
    });
}

}  // namespace topos::detail
