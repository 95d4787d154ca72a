#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include "graph/record.hpp"

#include <array>
#include <vector>

namespace topos {

template <Element T>
const Shape& Value<T>::shape() const {
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

template <Element T>
Value<T> constant(const Value<T>& anchor, Tensor<T> payload) {
    return Value<T>(anchor.tape_state(),
                    detail::append_source(*anchor.tape_state(), Opcode::Leaf, std::move(payload)));
}

template <Element T>
Value<T> broadcast_binary(Opcode opcode, const Value<T>& a, const Value<T>& b) {
    if (a.shape() == b.shape()) {
        return a.apply(opcode, {a, b});
    }
    if (a.tape_state() != b.tape_state()) {
        return a.apply(opcode, {a, b});  // reports the tape mismatch
    }
    const Shape target = detail::broadcast_shapes(opcode, a.index(), a.shape(), b.index(), b.shape());
    const Value<T> left = a.broadcast_to(target);
    const Value<T> right = b.broadcast_to(target);
    return left.apply(opcode, {left, right});
}

}  // namespace

template <Element T>
Value<T> Value<T>::broadcast_to(const Shape& target) const {
    const Shape& source = shape();
    if (source == target) {
        return *this;
    }
    const Shape common = detail::broadcast_shapes(Opcode::BroadcastAlong, index_, source, index_, target);
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
Value<T> Value<T>::exp() const {
    return apply(Opcode::Exp, {*this});
}

template <Element T>
Value<T> Value<T>::log() const {
    return apply(Opcode::Log, {*this});
}

template <Element T>
Value<T> Value<T>::tanh() const {
    return apply(Opcode::Tanh, {*this});
}

template <Element T>
Value<T> Value<T>::sigmoid() const {
    return apply(Opcode::Sigmoid, {*this});
}

template <Element T>
Value<T> Value<T>::relu() const {
    return maximum(constant(*this, Tensor<T>::filled(shape(), T{0})));
}

template <Element T>
Value<T> Value<T>::maximum(const Value& other) const {
    return broadcast_binary(Opcode::Maximum, *this, other);
}

template <Element T>
Value<T> Value<T>::greater_equal(const Value& other) const {
    return broadcast_binary(Opcode::GreaterEqual, *this, other);
}

template <Element T>
Value<T> Value<T>::matmul(const Value& other) const {
    return apply(Opcode::MatMul, {*this, other});
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
Value<T> Value<T>::pad(std::size_t axis, std::size_t before, std::size_t after) const {
    return apply(Opcode::Pad, {*this}, PadAttributes{axis, before, after});
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

#define TOPOS_INSTANTIATE_VALUE_OPERATORS(T)                       \
    template Value<T> operator+(const Value<T>&, const Value<T>&); \
    template Value<T> operator-(const Value<T>&, const Value<T>&); \
    template Value<T> operator*(const Value<T>&, const Value<T>&); \
    template Value<T> operator/(const Value<T>&, const Value<T>&); \
    template Value<T> operator-(const Value<T>&);                  \
    template Value<T> operator+(const Value<T>&, std::type_identity_t<T>);               \
    template Value<T> operator-(const Value<T>&, std::type_identity_t<T>);               \
    template Value<T> operator*(const Value<T>&, std::type_identity_t<T>);               \
    template Value<T> operator/(const Value<T>&, std::type_identity_t<T>);               \
    template Value<T> operator+(std::type_identity_t<T>, const Value<T>&);               \
    template Value<T> operator-(std::type_identity_t<T>, const Value<T>&);               \
    template Value<T> operator*(std::type_identity_t<T>, const Value<T>&);               \
    template Value<T> operator/(std::type_identity_t<T>, const Value<T>&);

TOPOS_INSTANTIATE_VALUE_OPERATORS(float)
TOPOS_INSTANTIATE_VALUE_OPERATORS(double)
#undef TOPOS_INSTANTIATE_VALUE_OPERATORS

}  // namespace topos
