// Network<T>'s reading members: its nodes, a node by symbol (checked against
// the network's lineage), describe()'s table, and reopen(), a new tape that
// holds a copy of every node under the same symbols and records after them, and
// convert(), the same graph over another element type.
#include "graph/describe.hpp"
#include "graph/spec.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>

#include <string>
#include <vector>

namespace topos {

template <Element T>
std::span<const Node> Network<T>::nodes() const {
    return state_->spec.nodes;
}

template <Element T>
const Node& Network<T>::node(Symbol symbol) const {
    return state_->spec.node(symbol, "Network::node");
}

template <Element T>
Tensor<T> Network<T>::payload(Symbol source) const {
    return state_->spec.source_payload(source, "Network::payload");
}

template <Element T>
std::span<const Scope> Network<T>::scopes() const {
    return state_->spec.scopes.scopes;
}

template <Element T>
std::uint32_t Network<T>::scope_of(Symbol symbol) const {
    return state_->spec.scopes.of(state_->spec.node(symbol, "Network::scope_of").index());
}

template <Element T>
std::string Network<T>::describe() const {
    std::vector<detail::DescribeRow> rows;
    rows.reserve(state_->spec.nodes.size());
    for (const Node& node : state_->spec.nodes) {
        rows.push_back(detail::describe_row(node));
    }
    return detail::render_table(rows) + "network: " + detail::count_summary(state_->spec.nodes) +
           '\n';
}

template <Element T>
Tape<T> Network<T>::reopen() const {
    auto tape = std::make_shared<detail::TapeState<T>>();
    tape->spec = state_->spec;
    tape->spec.lineage.push_back(detail::next_tape_id());
    return detail::GraphAccess::tape<T>(std::move(tape));
}

namespace {

// Indices must survive a conversion exactly: a token id rounded to another is
// another token.
template <Element T, Element U>
void check_converted_indices(const Tensor<T>& original,
                             const Tensor<U>& converted,
                             std::size_t node) {
    for (std::size_t i = 0; i < original.data().size(); ++i) {
        const auto before = static_cast<double>(original.data()[i]);
        if (static_cast<double>(converted.data()[i]) != before) {
            throw FeedError("Network::convert: index node " + std::to_string(node) + " holds " +
                            Tensor<double>(before).str() +
                            ", which the new element type does not hold exactly (bf16 holds "
                            "integers up to 256); record the tape in float to index past that");
        }
    }
}

}  // namespace

template <Element T>
template <Element U>
Network<U> Network<T>::convert() const {
    const detail::Spec<T>& spec = state_->spec;
    auto converted = std::make_shared<detail::NetworkState<U>>();
    detail::Spec<U>& into = converted->spec;
    into.lineage = spec.lineage;
    into.nodes = spec.nodes;
    into.payload_slot = spec.payload_slot;
    into.parameters = spec.parameters;
    into.inputs = spec.inputs;
    into.scopes = spec.scopes;
    into.payloads.reserve(spec.payloads.size());
    for (const Tensor<T>& payload : spec.payloads) {
        into.payloads.push_back(payload.template convert<U>());
    }
    for (std::size_t index = 0; index < spec.nodes.size(); ++index) {
        if (spec.payload_slot[index] != detail::no_payload &&
            spec.nodes[index].dtype() == DType::Index) {
            check_converted_indices(spec.payload(static_cast<std::uint32_t>(index)),
                                    into.payload(static_cast<std::uint32_t>(index)),
                                    index);
        }
    }
    converted->parameter_layout = state_->parameter_layout;
    return detail::GraphAccess::network<U>(std::move(converted));
}

#define TOPOS_INSTANTIATE_CONVERT(T)                              \
    template Network<float> Network<T>::convert<float>() const;   \
    template Network<double> Network<T>::convert<double>() const; \
    template Network<bf16> Network<T>::convert<bf16>() const;
TOPOS_INSTANTIATE_CONVERT(float)
TOPOS_INSTANTIATE_CONVERT(double)
TOPOS_INSTANTIATE_CONVERT(bf16)
#undef TOPOS_INSTANTIATE_CONVERT

template class Network<float>;
template class Network<double>;
template class Network<bf16>;

}  // namespace topos
