// Tape<T>'s members: recording sources (parameters, inputs, leaves and index
// inputs), reading values and nodes back, describe()'s table, and
// into_network, which copies the spec into a network, seals the tape and makes
// the parameter layout, one slot per Parameter node.
#include "graph/describe.hpp"
#include "graph/record.hpp"
#include "graph/spec.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/tape.hpp>

namespace topos {

template <Element T>
Tape<T>::Tape() : state_(std::make_shared<detail::TapeState<T>>()) {
    state_->spec.lineage.push_back(detail::next_tape_id());
}

template <Element T>
Value<T> Tape<T>::parameter(Tensor<T> initial) {
    return detail::GraphAccess::value(
        state_, detail::append_source(*state_, Opcode::Parameter, std::move(initial)));
}

template <Element T>
Value<T> Tape<T>::input(Tensor<T> default_value) {
    return detail::GraphAccess::value(
        state_, detail::append_source(*state_, Opcode::Input, std::move(default_value)));
}

template <Element T>
Value<T> Tape<T>::leaf(Tensor<T> constant) {
    return detail::GraphAccess::value(
        state_, detail::append_source(*state_, Opcode::Leaf, std::move(constant)));
}

template <Element T>
Value<T> Tape<T>::indices(Tensor<T> default_indices) {
    detail::check_indices(default_indices, "tape.indices");
    return detail::GraphAccess::value(
        state_,
        detail::append_source(*state_, Opcode::Input, std::move(default_indices), DType::Index));
}

template <Element T>
Value<T> Tape<T>::indices(const Shape& shape, std::initializer_list<std::int64_t> values) {
    std::vector<T> converted;
    for (std::int64_t value : values) {
        converted.push_back(static_cast<T>(value));
    }
    return indices(Tensor<T>(shape, converted));
}

template <Element T>
Value<T> Tape<T>::value(Symbol symbol) const {
    return detail::GraphAccess::value(state_, state_->spec.node(symbol, "Tape::value").index());
}

template <Element T>
std::span<const Node> Tape<T>::nodes() const {
    return state_->spec.nodes;
}

template <Element T>
Tensor<T> Tape<T>::payload(Symbol source) const {
    return state_->spec.source_payload(source, "Tape::payload");
}

template <Element T>
std::span<const Scope> Tape<T>::scopes() const {
    return state_->spec.scopes.scopes;
}

template <Element T>
std::uint32_t Tape<T>::scope_of(Symbol symbol) const {
    return state_->spec.scopes.of(state_->spec.node(symbol, "Tape::scope_of").index());
}

template <Element T>
std::string Tape<T>::describe() const {
    std::vector<detail::DescribeRow> rows;
    rows.reserve(state_->spec.nodes.size());
    for (const Node& node : state_->spec.nodes) {
        rows.push_back(detail::describe_row(node));
    }
    return detail::render_table(rows) + "tape: " + detail::count_summary(state_->spec.nodes) + '\n';
}

template <Element T>
Network<T> Tape<T>::into_network() && {
    state_->check_open("seal the tape");
    auto network = std::make_shared<detail::NetworkState<T>>();
    network->spec = state_->spec;  // the tape keeps its copy, so its values stay readable
    state_->sealed = true;
    auto layout = std::make_shared<detail::ParameterLayout>();
    layout->lineage = network->spec.lineage;
    layout->slot_of_node.assign(network->spec.nodes.size(), -1);
    for (std::size_t slot = 0; slot < network->spec.parameters.size(); ++slot) {
        const std::uint32_t index = network->spec.parameters[slot];
        layout->symbols.push_back(network->spec.nodes[index].symbol());
        layout->slot_of_node[index] = static_cast<std::int32_t>(slot);
    }
    network->parameter_layout = std::move(layout);
    return detail::GraphAccess::network<T>(std::move(network));
}

template class Tape<float>;
template class Tape<double>;
template class Tape<bf16>;

}  // namespace topos
