// Value<T>'s reductions: sum, mean and max over all axes, one axis or several
// (recorded as single-axis reductions, last axis first), and the stable
// logsumexp, log_softmax and softmax along one axis.
#include "graph/record.hpp"
#include "graph/value_helpers.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace topos {
namespace {

// The axes of a reduction, checked, in descending order (the recording order).
template <Element T>
std::vector<std::size_t> reduction_axes(const Value<T>& value, const Axes& axes) {
    std::vector<std::size_t> sorted(axes.values().begin(), axes.values().end());
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
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
    const detail::RecordScope scope(value);
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
Value<T> Value<T>::mean() const {
    const Value total = sum();
    return total / detail::constant(*this, Tensor<T>(static_cast<T>(shape().elements())));
}

template <Element T>
Value<T> Value<T>::mean(std::size_t axis) const {
    const Value total = sum(axis);
    return total /
           detail::constant(*this, Tensor<T>::filled(total.shape(), static_cast<T>(shape()[axis])));
}

template <Element T>
Value<T> Value<T>::mean(const Axes& axes, bool keep) const {
    const Value total = sum(axes, keep);
    std::size_t count = 1;
    for (std::size_t axis : axes.values()) {
        count *= shape()[axis];
    }
    return total / detail::constant(*this, Tensor<T>::filled(total.shape(), static_cast<T>(count)));
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

#define TOPOS_INSTANTIATE(T)                                        \
    template Value<T> Value<T>::sum() const;                        \
    template Value<T> Value<T>::sum(std::size_t) const;             \
    template Value<T> Value<T>::sum(const Axes&, bool) const;       \
    template Value<T> Value<T>::mean() const;                       \
    template Value<T> Value<T>::mean(std::size_t) const;            \
    template Value<T> Value<T>::mean(const Axes&, bool) const;      \
    template Value<T> Value<T>::max() const;                        \
    template Value<T> Value<T>::max(std::size_t) const;             \
    template Value<T> Value<T>::max(const Axes&, bool) const;       \
    template Value<T> Value<T>::logsumexp(std::size_t, bool) const; \
    template Value<T> Value<T>::log_softmax(std::size_t) const;     \
    template Value<T> Value<T>::softmax(std::size_t) const;
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)
#undef TOPOS_INSTANTIATE

}  // namespace topos
