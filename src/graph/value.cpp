#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <sstream>
#include <vector>

namespace topos {

template <Element T>
Tape<T> Value<T>::tape() const {
    return detail::GraphAccess::tape(tape_);
}

template <Element T>
Shape Value<T>::shape() const {
    return tape_->spec.nodes[index_].shape();
}

template <Element T>
Symbol Value<T>::symbol() const {
    return tape_->spec.nodes[index_].symbol();
}

template <Element T>
Value<T> Value<T>::apply(Opcode opcode,
                         std::initializer_list<Value> operands,
                         Attributes attributes) const {
    std::array<std::uint32_t, Node::max_operands> indices{};
    std::size_t count = 0;
    for (const Value& operand : operands) {
        if (operand.tape_ != tape_) {
            throw TapeError(std::string(name_of(opcode)) + " reads node " +
                            std::to_string(operand.index_) +
                            " of another tape; all operands of an operation must be recorded "
                            "on one tape");
        }
        if (count == Node::max_operands) {
            throw ShapeError(std::string(name_of(opcode)) + " was given too many operands");
        }
        indices[count++] = operand.index_;
    }
    const std::uint32_t index = detail::append(
        *tape_, opcode, std::span<const std::uint32_t>(indices.data(), count), attributes);
    return Value(tape_, index);
}

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

template <Element T>
Value<T> constant(const Value<T>& anchor, Tensor<T> payload) {
    return detail::GraphAccess::value(detail::GraphAccess::state(anchor),
                    detail::append_source(*detail::GraphAccess::state(anchor), Opcode::Leaf, std::move(payload)));
}

template <Element T>
Value<T> broadcast_binary(Opcode opcode,
                          const Value<T>& a,
                          const Value<T>& b,
                          const Attributes& attributes = NoAttributes{}) {
    if (a.shape() == b.shape() || detail::GraphAccess::state(a) != detail::GraphAccess::state(b)) {
        return a.apply(opcode, {a, b}, attributes);  // (reports a tape mismatch)
    }
    const Shape target =
        detail::broadcast_shapes(opcode, a.index(), a.shape(), b.index(), b.shape());
    const Value<T> left = a.broadcast_to(target);
    const Value<T> right = b.broadcast_to(target);
    return left.apply(opcode, {left, right}, attributes);
}

// The axes of a reduction, checked, in descending order (the recording order).
template <Element T>
std::vector<std::size_t> reduction_axes(const Value<T>& value, const Axes& axes) {
    std::vector<std::size_t> sorted(axes.values().begin(), axes.values().end());
    std::ranges::sort(sorted, std::greater<>());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i] >= value.shape().rank() || (i > 0 && sorted[i] == sorted[i - 1])) {
            throw ShapeError("a reduction of node " + std::to_string(value.index()) + ' ' +
                             value.shape().str() + " over axes " +
                             [&] {
                                 std::ostringstream out;
                                 out << axes;
                                 return out.str();
                             }() +
                             ": name each axis of the operand at most once");
        }
    }
    return sorted;
}

// Applies a single-axis reduction over several axes, last first; `keep`
// reinserts them with extent 1.
template <Element T, class Reduce>
Value<T> reduce_axes(const Value<T>& value, const Axes& axes, bool keep, Reduce reduce) {
    const std::vector<std::size_t> sorted = reduction_axes(value, axes);
    Value<T> result = value;
    for (std::size_t axis : sorted) {
        result = reduce(result, axis);
    }
    if (!keep) {
        return result;
    }
    Shape kept = value.shape();
    for (std::size_t axis : sorted) {
        kept = kept.with_extent(axis, 1);
    }
    return result.reshape(kept);
}

}  // namespace

template <Element T>
Value<T> Value<T>::broadcast_to(const Shape& target) const {
    const Shape& source = shape();
    if (source == target) {
        return *this;
    }
    const Shape common =
        detail::broadcast_shapes(Opcode::BroadcastAlong, index_, source, index_, target);
    if (!(common == target)) {
        throw ShapeError("broadcast_to of node " + std::to_string(index_) + ' ' + source.str() +
                         ": cannot broadcast to " + target.str() +
                         " (aligned from the last axis, each extent must equal the target's or "
                         "be 1)");
    }
    const std::size_t offset = target.rank() - source.rank();
    std::vector<bool> expanded(target.rank());
    std::vector<std::size_t> kept;
    for (std::size_t axis = 0; axis < target.rank(); ++axis) {
        const bool present = axis >= offset;
        expanded[axis] = !present || (source[axis - offset] == 1 && target[axis] != 1);
        if (!expanded[axis]) {
            kept.push_back(target[axis]);
        }
    }
    Value result = *this;
    if (kept.size() != source.rank()) {
        result = result.reshape(Shape(std::span<const std::size_t>(kept)));
    }
    for (std::size_t axis = 0; axis < target.rank(); ++axis) {
        if (expanded[axis]) {
            result = result.broadcast_along(axis, target[axis]);
        }
    }
    return result;
}

#define TOPOS_UNARY_SPELLING(name, opcode)     \
    template <Element T>                       \
    Value<T> Value<T>::name() const {          \
        return apply(Opcode::opcode, {*this}); \
    }

TOPOS_UNARY_SPELLING(abs, Abs)
TOPOS_UNARY_SPELLING(sign, Sign)
TOPOS_UNARY_SPELLING(exp, Exp)
TOPOS_UNARY_SPELLING(expm1, Expm1)
TOPOS_UNARY_SPELLING(log, Log)
TOPOS_UNARY_SPELLING(log1p, Log1p)
TOPOS_UNARY_SPELLING(sqrt, Sqrt)
TOPOS_UNARY_SPELLING(rsqrt, Rsqrt)
TOPOS_UNARY_SPELLING(square, Square)
TOPOS_UNARY_SPELLING(sin, Sin)
TOPOS_UNARY_SPELLING(cos, Cos)
TOPOS_UNARY_SPELLING(tanh, Tanh)
TOPOS_UNARY_SPELLING(sigmoid, Sigmoid)
TOPOS_UNARY_SPELLING(erf, Erf)
TOPOS_UNARY_SPELLING(gelu, Gelu)
TOPOS_UNARY_SPELLING(softplus, Softplus)
#undef TOPOS_UNARY_SPELLING

template <Element T>
Value<T> Value<T>::relu() const {
    return maximum(constant(*this, Tensor<T>::filled(shape(), T{0})));
}

template <Element T>
Value<T> Value<T>::maximum(const Value& other) const {
    return broadcast_binary(Opcode::Maximum, *this, other);
}

template <Element T>
Value<T> Value<T>::minimum(const Value& other) const {
    return broadcast_binary(Opcode::Minimum, *this, other);
}

template <Element T>
Value<T> Value<T>::pow(const Value& exponent) const {
    return broadcast_binary(Opcode::Pow, *this, exponent);
}

template <Element T>
Value<T> Value<T>::compare(const Value& other, Comparison direction) const {
    return broadcast_binary(Opcode::Compare, *this, other, CompareAttributes{direction});
}

template <Element T>
Value<T> Value<T>::equal(const Value& other) const {
    return compare(other, Comparison::Equal);
}

template <Element T>
Value<T> Value<T>::not_equal(const Value& other) const {
    return compare(other, Comparison::NotEqual);
}

template <Element T>
Value<T> Value<T>::less(const Value& other) const {
    return compare(other, Comparison::Less);
}

template <Element T>
Value<T> Value<T>::less_equal(const Value& other) const {
    return compare(other, Comparison::LessEqual);
}

template <Element T>
Value<T> Value<T>::greater(const Value& other) const {
    return compare(other, Comparison::Greater);
}

template <Element T>
Value<T> Value<T>::greater_equal(const Value& other) const {
    return compare(other, Comparison::GreaterEqual);
}

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

template <Element T>
Value<T> Value<T>::sum() const {
    return apply(Opcode::Sum, {*this});
}

template <Element T>
Value<T> Value<T>::sum(std::size_t axis) const {
    return apply(Opcode::Sum, {*this}, AxisAttributes{axis});
}

template <Element T>
Value<T> Value<T>::sum(const Axes& axes, bool keep) const {
    return reduce_axes(
        *this, axes, keep, [](const Value& v, std::size_t axis) { return v.sum(axis); });
}

template <Element T>
Value<T> Value<T>::mean(const Axes& axes, bool keep) const {
    const Value total = sum(axes, keep);
    std::size_t count = 1;
    for (std::size_t axis : axes.values()) {
        count *= shape()[axis];
    }
    return total / constant(*this, Tensor<T>::filled(total.shape(), static_cast<T>(count)));
}

template <Element T>
Value<T> Value<T>::max() const {
    Value result = *this;
    while (result.shape().rank() > 0) {
        result = result.max(result.shape().rank() - 1);
    }
    return result;
}

template <Element T>
Value<T> Value<T>::max(std::size_t axis) const {
    return apply(Opcode::Max, {*this}, AxisAttributes{axis});
}

template <Element T>
Value<T> Value<T>::max(const Axes& axes, bool keep) const {
    return reduce_axes(
        *this, axes, keep, [](const Value& v, std::size_t axis) { return v.max(axis); });
}

template <Element T>
Value<T> Value<T>::logsumexp(std::size_t axis, bool keep) const {
    const Value result = apply(Opcode::LogSumExp, {*this}, AxisAttributes{axis});
    return keep ? result.reshape(shape().with_extent(axis, 1)) : result;
}

template <Element T>
Value<T> Value<T>::log_softmax(std::size_t axis) const {
    return apply(Opcode::LogSoftmax, {*this}, AxisAttributes{axis});
}

template <Element T>
Value<T> Value<T>::softmax(std::size_t axis) const {
    return log_softmax(axis).exp();
}

template <Element T>
Value<T> Value<T>::mean() const {
    const Value total = sum();
    return total / constant(*this, Tensor<T>(static_cast<T>(shape().elements())));
}

template <Element T>
Value<T> Value<T>::mean(std::size_t axis) const {
    const Value total = sum(axis);
    return total / constant(*this, Tensor<T>::filled(total.shape(), static_cast<T>(shape()[axis])));
}

template <Element T>
Value<T> Value<T>::reshape(Shape target) const {
    return apply(Opcode::Reshape, {*this}, ReshapeAttributes{std::move(target)});
}

template <Element T>
Value<T> Value<T>::permute(Axes order) const {
    return apply(Opcode::Permute, {*this}, PermuteAttributes{std::move(order)});
}

template <Element T>
Value<T> Value<T>::transpose() const {
    if (shape().rank() < 2) {
        throw ShapeError("transpose of node " + std::to_string(index_) + ' ' + shape().str() +
                         ": swapping the last two axes needs rank 2 or more");
    }
    return transpose(shape().rank() - 2, shape().rank() - 1);
}

template <Element T>
Value<T> Value<T>::transpose(std::size_t first, std::size_t second) const {
    std::vector<std::size_t> order(shape().rank());
    for (std::size_t axis = 0; axis < order.size(); ++axis) {
        order[axis] = axis;
    }
    if (first >= order.size() || second >= order.size()) {
        throw ShapeError("transpose of node " + std::to_string(index_) + ' ' + shape().str() +
                         ": axes " + std::to_string(first) + " and " + std::to_string(second) +
                         " must both be below the rank " + std::to_string(order.size()));
    }
    std::swap(order[first], order[second]);
    return permute(Axes(std::span<const std::size_t>(order)));
}

template <Element T>
Value<T> Value<T>::squeeze(std::size_t axis) const {
    if (axis >= shape().rank() || shape()[axis] != 1) {
        throw ShapeError("squeeze of node " + std::to_string(index_) + ' ' + shape().str() +
                         ": axis " + std::to_string(axis) + " is not an axis of extent 1");
    }
    return reshape(shape().without_axis(axis));
}

template <Element T>
Value<T> Value<T>::unsqueeze(std::size_t axis) const {
    if (axis > shape().rank()) {
        throw ShapeError("unsqueeze of node " + std::to_string(index_) + ' ' + shape().str() +
                         ": a new axis goes at a position from 0 to the rank " +
                         std::to_string(shape().rank()));
    }
    return reshape(shape().with_axis(axis, 1));
}

template <Element T>
Value<T> Value<T>::broadcast_along(std::size_t axis, std::size_t extent) const {
    return apply(Opcode::BroadcastAlong, {*this}, BroadcastAttributes{axis, extent});
}

template <Element T>
Value<T> Value<T>::unfold(std::size_t axis,
                          std::size_t size,
                          std::size_t step,
                          std::size_t dilation) const {
    return apply(Opcode::Unfold, {*this}, WindowAttributes{axis, size, step, dilation});
}

template <Element T>
Value<T> Value<T>::narrow(std::size_t axis, std::size_t start, std::size_t length) const {
    return apply(Opcode::Narrow, {*this}, NarrowAttributes{axis, start, length});
}

template <Element T>
Value<T> Value<T>::fold(std::size_t axis,
                        std::size_t size,
                        std::size_t step,
                        std::size_t dilation,
                        std::size_t extent) const {
    return apply(Opcode::Fold, {*this}, FoldAttributes{axis, size, step, dilation, extent});
}

template <Element T>
Value<T> Value<T>::slice(std::size_t axis,
                         std::size_t start,
                         std::size_t stop,
                         std::size_t step) const {
    const std::size_t length = stop > start && step > 0 ? (stop - start + step - 1) / step : 0;
    if (step == 1) {
        return narrow(axis, start, length);
    }
    return apply(Opcode::Slice, {*this}, SliceAttributes{axis, start, length, step});
}

template <Element T>
Value<T> Value<T>::pad(std::size_t axis,
                       std::size_t before,
                       std::size_t after,
                       std::size_t interior) const {
    return apply(Opcode::Pad, {*this}, PadAttributes{axis, before, after, interior});
}

template <Element T>
Value<T> Value<T>::one_hot(std::size_t depth) const {
    return apply(Opcode::OneHot, {*this}, RowsAttributes{depth});
}

template <Element T>
Value<T> where(const Value<T>& mask, const Value<T>& a, const Value<T>& b) {
    const Shape branches =
        detail::broadcast_shapes(Opcode::Select, a.index(), a.shape(), b.index(), b.shape());
    const Shape target =
        detail::broadcast_shapes(Opcode::Select, mask.index(), mask.shape(), a.index(), branches);
    const Value<T> m = mask.broadcast_to(target);
    const Value<T> x = a.broadcast_to(target);
    return m.apply(Opcode::Select, {m, x, b.broadcast_to(target)});
}

template <Element T>
Value<T> concat(const std::vector<Value<T>>& values, std::size_t axis) {
    if (values.empty()) {
        throw ShapeError("concat needs at least one value");
    }
    std::vector<Value<T>> level = values;
    while (level.size() > 1) {  // a balanced tree of binary joins
        std::vector<Value<T>> next;
        for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
            next.push_back(
                level[i].apply(Opcode::Concat, {level[i], level[i + 1]}, AxisAttributes{axis}));
        }
        if (level.size() % 2 == 1) {
            next.push_back(level.back());
        }
        level = std::move(next);
    }
    return level.front();
}

template <Element T>
Value<T> stack(const std::vector<Value<T>>& values, std::size_t axis) {
    std::vector<Value<T>> expanded;
    for (const Value<T>& value : values) {
        expanded.push_back(value.unsqueeze(axis));
    }
    return concat(expanded, axis);
}

template <Element T>
Value<T> gather(const Value<T>& table, const Value<T>& indices) {
    return table.apply(Opcode::Gather, {table, indices});
}

namespace {

template <Element T>
void check_logits_are_a_batch_of_rows(const Value<T>& logits) {
    if (logits.shape().rank() != 2) {
        throw ShapeError("cross_entropy of node " + std::to_string(logits.index()) + ' ' +
                         logits.shape().str() + ": the logits must be [batch, classes]");
    }
}

}  // namespace

template <Element T>
Value<T> cross_entropy(const Value<T>& logits, const Value<T>& labels) {
    check_logits_are_a_batch_of_rows(logits);
    const Value<T> log_probabilities = logits.log_softmax(1);
    const Value<T> chosen = labels.one_hot(logits.shape()[1]);
    return -(log_probabilities * chosen).sum(1).mean();
}

template <Element T>
Value<T> cross_entropy(const Value<T>& logits,
                       const Value<T>& labels,
                       const CrossEntropyOptions& options) {
    const double smoothing = options.label_smoothing;
    if (!(smoothing >= 0 && smoothing <= 1)) {
        throw Error("cross_entropy's label smoothing is a probability in [0, 1]; got " +
                    std::to_string(smoothing));
    }
    if (smoothing == 0) {
        return cross_entropy(logits, labels);
    }
    check_logits_are_a_batch_of_rows(logits);
    const std::size_t classes = logits.shape()[1];
    const Value<T> log_probabilities = logits.log_softmax(1);
    const Value<T> target = labels.one_hot(classes) * static_cast<T>(1 - smoothing) +
                            static_cast<T>(smoothing / static_cast<double>(classes));
    return -(log_probabilities * target).sum(1).mean();
}

template <Element T>
Value<T> mse(const Value<T>& a, const Value<T>& b) {
    return (a - b).square().mean();
}

template <Element T>
Value<T> operator+(const Value<T>& a, const Value<T>& b) {
    return broadcast_binary(Opcode::Add, a, b);
}

template <Element T>
Value<T> operator-(const Value<T>& a, const Value<T>& b) {
    return broadcast_binary(Opcode::Sub, a, b);
}

template <Element T>
Value<T> operator*(const Value<T>& a, const Value<T>& b) {
    return broadcast_binary(Opcode::Mul, a, b);
}

template <Element T>
Value<T> operator/(const Value<T>& a, const Value<T>& b) {
    return broadcast_binary(Opcode::Div, a, b);
}

template <Element T>
Value<T> operator-(const Value<T>& a) {
    return a.apply(Opcode::Neg, {a});
}

template <Element T>
Value<T> operator+(const Value<T>& a, std::type_identity_t<T> b) {
    return a + constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator-(const Value<T>& a, std::type_identity_t<T> b) {
    return a - constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator*(const Value<T>& a, std::type_identity_t<T> b) {
    return a * constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator/(const Value<T>& a, std::type_identity_t<T> b) {
    return a / constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator+(std::type_identity_t<T> a, const Value<T>& b) {
    return constant(b, Tensor<T>(a)) + b;
}

template <Element T>
Value<T> operator-(std::type_identity_t<T> a, const Value<T>& b) {
    return constant(b, Tensor<T>(a)) - b;
}

template <Element T>
Value<T> operator*(std::type_identity_t<T> a, const Value<T>& b) {
    return constant(b, Tensor<T>(a)) * b;
}

template <Element T>
Value<T> operator/(std::type_identity_t<T> a, const Value<T>& b) {
    return constant(b, Tensor<T>(a)) / b;
}

template class Value<float>;
template class Value<double>;

#define TOPOS_INSTANTIATE_VALUE_OPERATORS(T)                                                       \
    template Value<T> where(const Value<T>&, const Value<T>&, const Value<T>&);                    \
    template Value<T> concat(const std::vector<Value<T>>&, std::size_t);                           \
    template Value<T> stack(const std::vector<Value<T>>&, std::size_t);                            \
    template Value<T> gather(const Value<T>&, const Value<T>&);                                    \
    template Value<T> cross_entropy(const Value<T>&, const Value<T>&);                             \
    template Value<T> cross_entropy(const Value<T>&, const Value<T>&, const CrossEntropyOptions&); \
    template Value<T> mse(const Value<T>&, const Value<T>&);                                       \
    template Value<T> operator+(const Value<T>&, const Value<T>&);                                 \
    template Value<T> operator-(const Value<T>&, const Value<T>&);                                 \
    template Value<T> operator*(const Value<T>&, const Value<T>&);                                 \
    template Value<T> operator/(const Value<T>&, const Value<T>&);                                 \
    template Value<T> operator-(const Value<T>&);                                                  \
    template Value<T> operator+(const Value<T>&, std::type_identity_t<T>);                         \
    template Value<T> operator-(const Value<T>&, std::type_identity_t<T>);                         \
    template Value<T> operator*(const Value<T>&, std::type_identity_t<T>);                         \
    template Value<T> operator/(const Value<T>&, std::type_identity_t<T>);                         \
    template Value<T> operator+(std::type_identity_t<T>, const Value<T>&);                         \
    template Value<T> operator-(std::type_identity_t<T>, const Value<T>&);                         \
    template Value<T> operator*(std::type_identity_t<T>, const Value<T>&);                         \
    template Value<T> operator/(std::type_identity_t<T>, const Value<T>&);

TOPOS_INSTANTIATE_VALUE_OPERATORS(float)
TOPOS_INSTANTIATE_VALUE_OPERATORS(double)
#undef TOPOS_INSTANTIATE_VALUE_OPERATORS

}  // namespace topos
