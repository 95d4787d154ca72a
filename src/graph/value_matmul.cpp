// Value<T>::matmul, the contraction: rank 2 with rank 2 directly, a rank-2
// right operand through every row of the left, and batches whose leading axes
// broadcast numpy-style.
#include "core/shape_too_large.hpp"
#include "graph/autocast_rounding.hpp"
#include "graph/one_tape.hpp"
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <algorithm>
#include <optional>
#include <string>

namespace topos {
namespace {

template <Element T>
[[noreturn]] void refuse(const Value<T>& a, const Value<T>& b, const std::string& problem) {
    throw ShapeError("MatMul of node " + std::to_string(a.index()) + ' ' + a.shape().str() +
                     ", node " + std::to_string(b.index()) + ' ' + b.shape().str() + ": " +
                     problem);
}

// The product's batch shape (the operands' batch axes broadcast numpy-style),
// or a ShapeError in the user's terms: both operands, never an internal node.
template <Element T>
Shape checked_batch(const Value<T>& a, const Value<T>& b) {
    const Shape& x = a.shape();
    const Shape& y = b.shape();
    if (x.rank() < 2 || y.rank() < 2) {
        refuse(
            a, b, "matmul takes operands of rank 2 or more; reshape a vector to [1, n] or [n, 1]");
    }
    if (x[x.rank() - 1] != y[y.rank() - 2]) {
        refuse(a,
               b,
               "the inner extents differ (" + std::to_string(x[x.rank() - 1]) + " vs " +
                   std::to_string(y[y.rank() - 2]) +
                   "); the left operand's columns must equal the right operand's rows "
                   "(transpose one?)");
    }
    const Shape batch_x(x.extents().first(x.rank() - 2));
    const Shape batch_y(y.extents().first(y.rank() - 2));
    detail::BroadcastConflict conflict{};
    std::optional<Shape> batch;
    try {
        batch = detail::common_shape(batch_x, batch_y, conflict);
    } catch (const detail::ShapeTooLarge& too_large) {
        refuse(a, b, too_large.what());
    }
    if (!batch) {
        refuse(a,
               b,
               "the batch axes " + batch_x.str() + " and " + batch_y.str() +
                   " do not broadcast (batch axis " + std::to_string(conflict.axis) + ": " +
                   std::to_string(conflict.a) + " vs " + std::to_string(conflict.b) +
                   "); aligned from the last batch axis, extents must be equal or 1");
    }
    return *batch;
}

// Broadcasts the batch axes of both operands to their common shape.
template <Element T>
Value<T> batched_matmul(const Value<T>& a, const Value<T>& b, const Shape& batch) {
    auto full = [&](const Shape& matrix) {
        Shape result = batch;
        result = result.with_axis(result.rank(), matrix[matrix.rank() - 2]);
        return result.with_axis(result.rank(), matrix[matrix.rank() - 1]);
    };
    const Value<T> left = a.broadcast_to(full(a.shape()));
    const Value<T> right = b.broadcast_to(full(b.shape()));
    return left.apply(Opcode::MatMul, {left, right});
}

// The product of operands on one tape whose shapes checked_batch accepted.
template <Element T>
Value<T> product(const Value<T>& left, const Value<T>& right, const Shape& batch) {
    const Shape a = left.shape();
    const Shape b = right.shape();
    if (a.rank() > 2 && b.rank() == 2) {  // every row of the left through one matrix: no copies
        const std::size_t columns = a[a.rank() - 1];
        const Shape leading(a.extents().first(a.rank() - 1));
        const Value<T> rows = left.reshape(Shape{leading.elements(), columns});
        return rows.apply(Opcode::MatMul, {rows, right}).reshape(a.with_extent(a.rank() - 1, b[1]));
    }
    if (a.rank() == b.rank() &&
        std::equal(a.extents().begin(), a.extents().end() - 2, b.extents().begin())) {
        return left.apply(Opcode::MatMul, {left, right});
    }
    return batched_matmul(left, right, batch);
}

}  // namespace

template <Element T>
Value<T> Value<T>::matmul(const Value& given_other) const {
    if (tape_ != detail::GraphAccess::state(given_other)) {
        const auto [self, other] = detail::on_one_tape("matmul", *this, given_other);
        return self.matmul(other);
    }
    const Shape batch = checked_batch(*this, given_other);
    const detail::RecordScope scope(*this);
    const Value left = detail::autocast_rounded(*this);
    const Value right = detail::autocast_rounded(given_other);
    return detail::autocast_rounded(product(left, right, batch));
}

template Value<float> Value<float>::matmul(const Value<float>&) const;
template Value<double> Value<double>::matmul(const Value<double>&) const;
template Value<bf16> Value<bf16>::matmul(const Value<bf16>&) const;

}  // namespace topos
