// Value<T>'s layout and indexing: reshape, permute, transpose, squeeze,
// windows (unfold, fold), narrow, slice, pad, broadcast_along, the joins concat
// and stack, and the index lookups one_hot and gather.
#include "graph/one_tape.hpp"
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace topos {

template <Element T>
Value<T> Value<T>::reshape(Shape target) const {
    return apply(Opcode::Reshape, {*this}, ReshapeAttributes{std::move(target)});
}

template <Element T>
Value<T> Value<T>::flatten(std::size_t start_axis) const {
    const Shape source = shape();
    if (source.rank() == 0) {
        return reshape(Shape{1});
    }
    if (start_axis >= source.rank()) {
        throw ShapeError("flatten of node " + std::to_string(index_) + ' ' + source.str() +
                         ": start_axis " + std::to_string(start_axis) +
                         " is not an axis of a rank " + std::to_string(source.rank()) + " value");
    }
    std::vector<std::size_t> extents(
        source.extents().begin(),
        source.extents().begin() + static_cast<std::ptrdiff_t>(start_axis));
    std::size_t merged = 1;
    for (std::size_t axis = start_axis; axis < source.rank(); ++axis) {
        merged *= source[axis];  // within Shape::max_elements: the source holds them
    }
    extents.push_back(merged);
    return reshape(Shape(std::span<const std::size_t>(extents)));
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
    const std::size_t length = stop > start && step > 0 ? (stop - start - 1) / step + 1 : 0;
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
Value<T> concat(const std::vector<Value<T>>& values, std::size_t axis) {
    if (values.empty()) {
        throw ShapeError("concat needs at least one value");
    }
    std::vector<Value<T>> level = detail::on_one_tape("concat", values);
    const detail::RecordScope scope(level.front());
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
    if (values.empty()) {
        throw ShapeError("stack needs at least one value");
    }
    const std::vector<Value<T>> joined = detail::on_one_tape("stack", values);
    const detail::RecordScope scope(joined.front());
    std::vector<Value<T>> expanded;
    expanded.reserve(joined.size());
    for (const Value<T>& value : joined) {
        expanded.push_back(value.unsqueeze(axis));
    }
    return concat(expanded, axis);
}

template <Element T>
Value<T> gather(const Value<T>& table, const Value<T>& indices) {
    return table.apply(Opcode::Gather, {table, indices});
}

// NOLINTBEGIN(bugprone-macro-parentheses): T names a type.
#define TOPOS_INSTANTIATE(T)                                                                      \
    template Value<T> Value<T>::reshape(Shape) const;                                             \
    template Value<T> Value<T>::flatten(std::size_t) const;                                       \
    template Value<T> Value<T>::permute(Axes) const;                                              \
    template Value<T> Value<T>::transpose() const;                                                \
    template Value<T> Value<T>::transpose(std::size_t, std::size_t) const;                        \
    template Value<T> Value<T>::squeeze(std::size_t) const;                                       \
    template Value<T> Value<T>::unsqueeze(std::size_t) const;                                     \
    template Value<T> Value<T>::broadcast_along(std::size_t, std::size_t) const;                  \
    template Value<T> Value<T>::unfold(std::size_t, std::size_t, std::size_t, std::size_t) const; \
    template Value<T> Value<T>::narrow(std::size_t, std::size_t, std::size_t) const;              \
    template Value<T> Value<T>::fold(                                                             \
        std::size_t, std::size_t, std::size_t, std::size_t, std::size_t) const;                   \
    template Value<T> Value<T>::slice(std::size_t, std::size_t, std::size_t, std::size_t) const;  \
    template Value<T> Value<T>::pad(std::size_t, std::size_t, std::size_t, std::size_t) const;    \
    template Value<T> Value<T>::one_hot(std::size_t) const;                                       \
    template Value<T> concat(const std::vector<Value<T>>&, std::size_t);                          \
    template Value<T> stack(const std::vector<Value<T>>&, std::size_t);                           \
    template Value<T> gather(const Value<T>&, const Value<T>&);
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)
// NOLINTEND(bugprone-macro-parentheses)
#undef TOPOS_INSTANTIATE

}  // namespace topos
