// Value<T>::matmul, the contraction: rank 2 with rank 2 directly, a rank-2
// right operand through every row of the left, and batches whose leading axes
// broadcast numpy-style.
#include "graph/record.hpp"
#include <topos/graph/value.hpp>

#include <algorithm>

namespace topos {
namespace {

// Broadcasts the batch axes of both operands to their numpy-style common shape.
template <Element T>
Value<T> batched_matmul(const Value<T>& a, const Value<T>& b) {
    const Shape& x = a.shape();
    const Shape& y = b.shape();
    const Shape batch_x(x.extents().first(x.rank() - 2));
    const Shape batch_y(y.extents().first(y.rank() - 2));
    const Shape batch =
        detail::broadcast_shapes(Opcode::MatMul, a.index(), batch_x, b.index(), batch_y);
    auto full = [&](const Shape& matrix) {
        Shape result = batch;
        result = result.with_axis(result.rank(), matrix[matrix.rank() - 2]);
        return result.with_axis(result.rank(), matrix[matrix.rank() - 1]);
    };
    const Value<T> left = a.broadcast_to(full(x));
    const Value<T> right = b.broadcast_to(full(y));
    return left.apply(Opcode::MatMul, {left, right});
}

}  // namespace

template <Element T>
Value<T> Value<T>::matmul(const Value& other) const {
    const Shape& a = shape();
    const Shape& b = other.shape();
    if (a.rank() > 2 && b.rank() == 2) {  // every row of the left through one matrix: no copies
        const std::size_t columns = a[a.rank() - 1];
        const Value rows =
            reshape(Shape{a.elements() / std::max<std::size_t>(columns, 1), columns});
        return rows.matmul(other).reshape(a.with_extent(a.rank() - 1, b[1]));
    }
    const bool same_batch =
        a.rank() == b.rank() && a.rank() >= 2 &&
        std::ranges::equal(a.extents().first(a.rank() - 2), b.extents().first(b.rank() - 2));
    if (same_batch || a.rank() < 2 || b.rank() < 2) {
        return apply(Opcode::MatMul, {*this, other});  // (the shape rule reports bad ranks)
    }
    return batched_matmul(*this, other);
}

template Value<float> Value<float>::matmul(const Value<float>&) const;
template Value<double> Value<double>::matmul(const Value<double>&) const;

}  // namespace topos
