// The building blocks of the naive references (naive_reference.hpp): plain
// multi-dimensional coordinates, tabulated tensors, what a reference predicts,
// and the references of each opcode family (naive_reference_reduction.cpp,
// naive_reference_layout.cpp) that the table of naive_reference.cpp names.
// Private to tests/support.
#pragma once

#include "support/naive_reference.hpp"
#include <topos/graph/node.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace topos::test::naive {

// ---- coordinates ----

using Coordinates = std::vector<std::size_t>;

// The index odometer: the coordinates of row-major position `flat` of `shape`.
inline Coordinates coordinates_of(const Shape& shape, std::size_t flat) {
    Coordinates at(shape.rank());
    for (std::size_t axis = shape.rank(); axis-- > 0;) {
        at[axis] = flat % shape[axis];
        flat /= shape[axis];
    }
    return at;
}

// The row-major position of coordinates `at` in `shape`.
inline std::size_t position_of(const Shape& shape, const Coordinates& at) {
    std::size_t flat = 0;
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        flat = flat * shape[axis] + at[axis];
    }
    return flat;
}

inline double element(const Tensor<double>& tensor, const Coordinates& at) {
    return tensor.data()[position_of(tensor.shape(), at)];
}

// The coordinates without the one of `axis`.
inline Coordinates without(Coordinates at, std::size_t axis) {
    at.erase(at.begin() + static_cast<std::ptrdiff_t>(axis));
    return at;
}

// The coordinates with `value` inserted as the one of `axis`.
inline Coordinates inserted(Coordinates at, std::size_t axis, std::size_t value) {
    at.insert(at.begin() + static_cast<std::ptrdiff_t>(axis), value);
    return at;
}

// The coordinates from `first` up to (not including) `last`.
inline Coordinates part(const Coordinates& at, std::size_t first, std::size_t last) {
    return Coordinates(at.begin() + static_cast<std::ptrdiff_t>(first),
                       at.begin() + static_cast<std::ptrdiff_t>(last));
}

inline Coordinates joined(Coordinates front, const Coordinates& back) {
    front.insert(front.end(), back.begin(), back.end());
    return front;
}

// A tensor of `shape` whose element at coordinates c is value_at(c).
template <class ValueAt>
Tensor<double> tabulate(const Shape& shape, ValueAt value_at) {
    std::vector<double> values(shape.elements());
    for (std::size_t flat = 0; flat < values.size(); ++flat) {
        values[flat] = value_at(coordinates_of(shape, flat));
    }
    return Tensor<double>(shape, values);
}

// An index element as a row number.
inline std::size_t row_of(double index) {
    return static_cast<std::size_t>(index);
}

// ---- what a reference predicts ----

inline Expected exactly(Tensor<double> values) {
    return {std::move(values)};
}

inline Expected within_tolerance(Tensor<double> values, std::vector<double> scale) {
    return {std::move(values), false, std::move(scale)};
}

// ---- elementwise ----

template <class F>
Expected unary_exact(const Operands& x, F f) {
    return exactly(
        tabulate(x[0].shape(), [&](const Coordinates& at) { return f(element(x[0], at)); }));
}

template <class F>
Expected binary_exact(const Operands& x, F f) {
    return exactly(tabulate(x[0].shape(), [&](const Coordinates& at) {
        return f(element(x[0], at), element(x[1], at));
    }));
}

// f evaluated in long double by the C library, rounded to double.
template <class F>
Expected unary_libm(const Operands& x, F f) {
    return within_tolerance(tabulate(x[0].shape(),
                                     [&](const Coordinates& at) {
                                         const long double v = element(x[0], at);
                                         return static_cast<double>(f(v));
                                     }),
                            std::vector<double>(x[0].elements(), 0.0));
}

// ---- contraction and reduction (naive_reference_reduction.cpp) ----

Expected matmul(const Node& node, const Operands& x);
Expected sum(const Node& node, const Operands& x);
Expected max(const Node& node, const Operands& x);
Expected log_sum_exp(const Node& node, const Operands& x);
Expected log_softmax(const Node& node, const Operands& x);

// ---- layout and indexing (naive_reference_layout.cpp) ----

Expected reshape(const Node& node, const Operands& x);
Expected permute(const Node& node, const Operands& x);
Expected broadcast_along(const Node& node, const Operands& x);
Expected unfold(const Node& node, const Operands& x);
Expected fold(const Node& node, const Operands& x);
Expected narrow(const Node& node, const Operands& x);
Expected slice(const Node& node, const Operands& x);
Expected pad(const Node& node, const Operands& x);
Expected concat(const Node& node, const Operands& x);
Expected gather(const Node& node, const Operands& x);
Expected scatter_add(const Node& node, const Operands& x);
Expected one_hot(const Node& node, const Operands& x);

}  // namespace topos::test::naive
