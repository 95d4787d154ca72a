// Value<T>, the handle itself: its shape, symbol and tape, apply (the one funnel
// every method goes through) and constant (a Leaf beside a value). The methods
// are defined by concern in value_broadcasting.cpp and the other value_*.cpp.
#include "graph/record.hpp"
#include "graph/value_helpers.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <array>
#include <string>
#include <utility>

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

namespace detail {

template <Element T>
Value<T> constant(const Value<T>& anchor, Tensor<T> payload) {
    return detail::GraphAccess::value(
        detail::GraphAccess::state(anchor),
        detail::append_source(
            *detail::GraphAccess::state(anchor), Opcode::Leaf, std::move(payload)));
}

}  // namespace detail

template class Value<float>;
template class Value<double>;

template Value<float> detail::constant(const Value<float>&, Tensor<float>);
template Value<double> detail::constant(const Value<double>&, Tensor<double>);

}  // namespace topos
