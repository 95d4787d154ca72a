// Numpy-style broadcasting spelled out as explicit BroadcastAlong and Reshape
// nodes: broadcast_to, binary operations and where over operands of different
// shapes, and the arithmetic operators that use them.
#include "core/shape_too_large.hpp"
#include "graph/one_tape.hpp"
#include "graph/record.hpp"
#include "graph/value_helpers.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos {

namespace detail {

template <Element T>
Value<T> broadcast_binary(Opcode opcode,
                          const Value<T>& first,
                          const Value<T>& second,
                          const Attributes& attributes) {
    const auto [a, b] = on_one_tape(std::string(name_of(opcode)).c_str(), first, second);
    if (a.shape() == b.shape()) {
        return a.apply(opcode, {a, b}, attributes);
    }
    const RecordScope scope(a);
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
    detail::BroadcastConflict conflict{};
    const std::optional<Shape> common = detail::common_shape(source, target, conflict);
    if (!common || !(*common == target)) {
        throw ShapeError("broadcast_to of node " + std::to_string(index_) + ' ' + source.str() +
                         ": cannot broadcast to " + target.str() +
                         " (aligned from the last axis, each extent must equal the target's or "
                         "be 1)");
    }
    const detail::RecordScope scope(*this);
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

namespace {

// The common shape of where's three operands, or a ShapeError that names all three.
Shape where_shape(const Shape& mask, const Shape& a, const Shape& b, const auto& describe) {
    detail::BroadcastConflict conflict{};
    try {
        std::optional<Shape> branches = detail::common_shape(a, b, conflict);
        std::optional<Shape> target =
            branches ? detail::common_shape(mask, *branches, conflict) : std::nullopt;
        if (target) {
            return *target;
        }
    } catch (const detail::ShapeTooLarge& too_large) {
        throw ShapeError(describe() + too_large.what());
    }
    throw ShapeError(describe() + detail::broadcast_advice(conflict));
}

}  // namespace

template <Element T>
Value<T> where(const Value<T>& given_mask, const Value<T>& given_a, const Value<T>& given_b) {
    // Named references, not a structured binding: clang 14 lets no lambda capture one.
    const auto operands = detail::on_one_tape("where", given_mask, given_a, given_b);
    const Value<T>& mask = operands[0];
    const Value<T>& a = operands[1];
    const Value<T>& b = operands[2];
    const Shape target = where_shape(mask.shape(), a.shape(), b.shape(), [&] {
        return "where of node " + std::to_string(mask.index()) + ' ' + mask.shape().str() +
               " (the mask), node " + std::to_string(a.index()) + ' ' + a.shape().str() +
               ", node " + std::to_string(b.index()) + ' ' + b.shape().str() + ": ";
    });
    const detail::RecordScope scope(mask);
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
    const detail::RecordScope scope(a);
    return a + detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator-(const Value<T>& a, std::type_identity_t<T> b) {
    const detail::RecordScope scope(a);
    return a - detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator*(const Value<T>& a, std::type_identity_t<T> b) {
    const detail::RecordScope scope(a);
    return a * detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator/(const Value<T>& a, std::type_identity_t<T> b) {
    const detail::RecordScope scope(a);
    return a / detail::constant(a, Tensor<T>(b));
}

template <Element T>
Value<T> operator+(std::type_identity_t<T> a, const Value<T>& b) {
    const detail::RecordScope scope(b);
    return detail::constant(b, Tensor<T>(a)) + b;
}

template <Element T>
Value<T> operator-(std::type_identity_t<T> a, const Value<T>& b) {
    const detail::RecordScope scope(b);
    return detail::constant(b, Tensor<T>(a)) - b;
}

template <Element T>
Value<T> operator*(std::type_identity_t<T> a, const Value<T>& b) {
    const detail::RecordScope scope(b);
    return detail::constant(b, Tensor<T>(a)) * b;
}

template <Element T>
Value<T> operator/(std::type_identity_t<T> a, const Value<T>& b) {
    const detail::RecordScope scope(b);
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
TOPOS_INSTANTIATE(bf16)
#undef TOPOS_INSTANTIATE

}  // namespace topos
