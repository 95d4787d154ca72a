// Numpy-style broadcasting spelled out as explicit BroadcastAlong and Reshape
// nodes: broadcast_to, binary operations and where over operands of different
// shapes, and the arithmetic operators that use them.
#include "graph/record.hpp"
#include "graph/value_helpers.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <span>
#include <string>
#include <vector>

namespace topos {

namespace detail {

template <Element T>
Value<T> broadcast_binary(Opcode opcode,
                          const Value<T>& a,
                          const Value<T>& b,
                          const Attributes& attributes) {
    if (a.shape() == b.shape() || detail::GraphAccess::state(a) != detail::GraphAccess::state(b)) {
        return a.apply(opcode, {a, b}, attributes);  // (reports a tape mismatch)
    }
    const Shape target =
        detail::broadcast_shapes(opcode, a.index(), a.shape(), b.index(), b.shape());
    const Value<T> left = a.broadcast_to(target);
    const Value<T> right = b.broadcast_to(target);
    return left.apply(opcode, {left, right}, attributes);
}

}  // namespace detail

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
Value<T> operator+(const Value<T>& a, const Value<T>& b) {
    return detail::broadcast_binary(Opcode::Add, a, b);
}

template <Element T>
Value<T> operator-(const Value<T>& a, const Value<T>& b) {
    return detail::broadcast_binary(Opcode::Sub, a, b);
}

template <Element T>
Value<T> operator*(const Value<T>& a, const Value<T>& b) {
    return detail::broadcast_binary(Opcode::Mul, a, b);
}

template <Element T>
Value<T> operator/(const Value<T>& a, const Value<T>& b) {
    return detail::broadcast_binary(Opcode::Div, a, b);
}

template <Element T>
Value<T> operator-(const Value<T>& a) {
    return a.apply(Opcode::Neg, {a});
}

template <Element T>
Value<T> operator+(const Value<T>& a, std::type_identity_t<T> b) {
    return a + detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator-(const Value<T>& a, std::type_identity_t<T> b) {
    return a - detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator*(const Value<T>& a, std::type_identity_t<T> b) {
    return a * detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator/(const Value<T>& a, std::type_identity_t<T> b) {
    return a / detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator+(std::type_identity_t<T> a, const Value<T>& b) {
    return detail::constant(b, Tensor<T>(a)) + b;
}

template <Element T>
Value<T> operator-(std::type_identity_t<T> a, const Value<T>& b) {
    return detail::constant(b, Tensor<T>(a)) - b;
}

template <Element T>
Value<T> operator*(std::type_identity_t<T> a, const Value<T>& b) {
    return detail::constant(b, Tensor<T>(a)) * b;
}

template <Element T>
Value<T> operator/(std::type_identity_t<T> a, const Value<T>& b) {
    return detail::constant(b, Tensor<T>(a)) / b;
}

#define TOPOS_INSTANTIATE(T)                                                    \
    template Value<T> detail::broadcast_binary(                                 \
        Opcode, const Value<T>&, const Value<T>&, const Attributes&);           \
    template Value<T> Value<T>::broadcast_to(const Shape&) const;               \
    template Value<T> where(const Value<T>&, const Value<T>&, const Value<T>&); \
    template Value<T> operator+(const Value<T>&, const Value<T>&);              \
    template Value<T> operator-(const Value<T>&, const Value<T>&);              \
    template Value<T> operator*(const Value<T>&, const Value<T>&);              \
    template Value<T> operator/(const Value<T>&, const Value<T>&);              \
    template Value<T> operator-(const Value<T>&);                               \
    template Value<T> operator+(const Value<T>&, std::type_identity_t<T>);      \
    template Value<T> operator-(const Value<T>&, std::type_identity_t<T>);      \
    template Value<T> operator*(const Value<T>&, std::type_identity_t<T>);      \
    template Value<T> operator/(const Value<T>&, std::type_identity_t<T>);      \
    template Value<T> operator+(std::type_identity_t<T>, const Value<T>&);      \
    template Value<T> operator-(std::type_identity_t<T>, const Value<T>&);      \
    template Value<T> operator*(std::type_identity_t<T>, const Value<T>&);      \
    template Value<T> operator/(std::type_identity_t<T>, const Value<T>&);
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
#undef TOPOS_INSTANTIATE

}  // namespace topos
