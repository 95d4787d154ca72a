// Value<T>, the handle itself: its shape, symbol and tape, apply (the one funnel
// every method goes through) and constant (a Leaf beside a value). The methods
// are defined by concern in value_broadcasting.cpp and the other value_*.cpp.
#include "graph/one_tape.hpp"
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
    if (operands.size() > Node::max_operands) {
        throw ShapeError(std::string(name_of(opcode)) + " was given too many operands");
    }
    std::array<std::uint32_t, Node::max_operands> indices{};
    std::array<const Value*, Node::max_operands> read{};
    std::size_t count = 0;
    for (const Value& operand : operands) {
        indices[count] = operand.index_;
        read[count++] = &operand;
    }
    std::shared_ptr<detail::TapeState<T>> tape = tape_;
    if (count > 0) {
        tape = detail::common_tape<T>(std::string(name_of(opcode)).c_str(),
                                      std::span<const Value* const>(read.data(), count));
    }
    const std::uint32_t index = detail::append(
        *tape, opcode, std::span<const std::uint32_t>(indices.data(), count), attributes);
    return Value(std::move(tape), index);
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
template class Value<bf16>;

template Value<float> detail::constant(const Value<float>&, Tensor<float>);
template Value<double> detail::constant(const Value<double>&, Tensor<double>);
template Value<bf16> detail::constant(const Value<bf16>&, Tensor<bf16>);

}  // namespace topos
