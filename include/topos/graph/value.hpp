// Value<T>: a handle to one node of a tape while it is being recorded. Every
// expression over values appends one node (or a few, when numpy-style
// broadcasting is spelled out as explicit BroadcastAlong and Reshape nodes), its
// shape checked first: a mismatch throws ShapeError and appends nothing.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/opcode.hpp>
#include <topos/graph/symbol.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace topos {

namespace detail {
template <Element T>
struct TapeState;
}  // namespace detail

template <Element T>
class Tape;

template <Element T>
class Value {
public:
    Value(std::shared_ptr<detail::TapeState<T>> tape, std::uint32_t index)
        : tape_(std::move(tape)), index_(index) {}

    std::uint32_t index() const { return index_; }

    const Shape& shape() const;

    // The detached name of this node, readable against the sealed network. The
    // conversion lets a value stand wherever a symbol is expected.
    Symbol symbol() const;

    operator Symbol() const { return symbol(); }  // NOLINT(google-explicit-constructor)

    // Elementwise functions.
    Value exp() const;
    Value log() const;
    Value tanh() const;
    Value sigmoid() const;
    Value relu() const;  // records Maximum against a zero Leaf
    Value maximum(const Value& other) const;
    Value greater_equal(const Value& other) const;  // 1 where this >= other, else 0

    // Contraction and reductions.
    Value matmul(const Value& other) const;
    Value sum() const;                  // over all axes, to rank 0
    Value sum(std::size_t axis) const;  // along one axis, removing it
    Value mean() const;
    Value mean(std::size_t axis) const;

    // Layout.
    Value reshape(Shape shape) const;
    Value permute(Axes order) const;
    Value broadcast_along(std::size_t axis, std::size_t extent) const;
    Value broadcast_to(const Shape& shape) const;  // numpy rules, as explicit nodes
    Value unfold(std::size_t axis, std::size_t size, std::size_t step, std::size_t dilation = 1) const;
    Value narrow(std::size_t axis, std::size_t start, std::size_t length) const;
    Value pad(std::size_t axis, std::size_t before, std::size_t after) const;

    // Appends a node of any opcode with explicit operands and attributes: the
    // one funnel every method above goes through.
    Value apply(Opcode opcode, std::initializer_list<Value> operands, Attributes attributes = {}) const;

    const std::shared_ptr<detail::TapeState<T>>& tape_state() const { return tape_; }

private:
    std::shared_ptr<detail::TapeState<T>> tape_;
    std::uint32_t index_;
};

// Elementwise arithmetic with numpy-style broadcasting; a plain number on one
// side is recorded as a rank-0 Leaf.
template <Element T>
Value<T> operator+(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator-(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator*(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator/(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator-(const Value<T>& a);

template <Element T>
Value<T> operator+(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator-(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator*(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator/(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator+(std::type_identity_t<T> a, const Value<T>& b);
template <Element T>
Value<T> operator-(std::type_identity_t<T> a, const Value<T>& b);
template <Element T>
Value<T> operator*(std::type_identity_t<T> a, const Value<T>& b);
template <Element T>
Value<T> operator/(std::type_identity_t<T> a, const Value<T>& b);

// Free spellings of the named operations.
template <Element T>
Value<T> matmul(const Value<T>& a, const Value<T>& b) {
    return a.matmul(b);
}

template <Element T>
Value<T> maximum(const Value<T>& a, const Value<T>& b) {
    return a.maximum(b);
}

template <Element T>
Value<T> exp(const Value<T>& a) {
    return a.exp();
}

template <Element T>
Value<T> log(const Value<T>& a) {
    return a.log();
}

template <Element T>
Value<T> tanh(const Value<T>& a) {
    return a.tanh();
}

template <Element T>
Value<T> sigmoid(const Value<T>& a) {
    return a.sigmoid();
}

template <Element T>
Value<T> relu(const Value<T>& a) {
    return a.relu();
}

template <Element T>
Value<T> sum(const Value<T>& a) {
    return a.sum();
}

template <Element T>
Value<T> sum(const Value<T>& a, std::size_t axis) {
    return a.sum(axis);
}

template <Element T>
Value<T> mean(const Value<T>& a) {
    return a.mean();
}

template <Element T>
Value<T> reshape(const Value<T>& a, Shape shape) {
    return a.reshape(std::move(shape));
}

template <Element T>
Value<T> permute(const Value<T>& a, Axes order) {
    return a.permute(std::move(order));
}

template <Element T>
Value<T> broadcast_along(const Value<T>& a, std::size_t axis, std::size_t extent) {
    return a.broadcast_along(axis, extent);
}

template <Element T>
Value<T> unfold(const Value<T>& a,
                std::size_t axis,
                std::size_t size,
                std::size_t step,
                std::size_t dilation = 1) {
    return a.unfold(axis, size, step, dilation);
}

template <Element T>
Value<T> narrow(const Value<T>& a, std::size_t axis, std::size_t start, std::size_t length) {
    return a.narrow(axis, start, length);
}

extern template class Value<float>;
extern template class Value<double>;

}  // namespace topos
