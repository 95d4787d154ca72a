// The one broadcasting rule of tensor arithmetic and comparisons: equal shapes,
// or a rank-0 operand on either side that stands for every element. Kept in
// one place so that arithmetic and comparisons accept exactly the same shapes.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <span>
#include <string>

namespace topos::detail {

template <Element T, class Op>
Tensor<T> broadcast_elementwise(const Tensor<T>& a, const Tensor<T>& b, const char* name, Op op) {
    const bool a_scalar = a.shape().rank() == 0;
    const bool b_scalar = b.shape().rank() == 0;
    if (!(a.shape() == b.shape()) && !a_scalar && !b_scalar) {
        throw ShapeError(std::string("tensor ") + name +
                         " needs equal shapes or a rank-0 operand, got " + a.shape().str() +
                         " and " + b.shape().str());
    }
    const Shape& shape = a_scalar ? b.shape() : a.shape();
    auto x = a.data();
    auto y = b.data();
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = op(x[a_scalar ? 0 : i], y[b_scalar ? 0 : i]);
        }
    });
}

}  // namespace topos::detail
