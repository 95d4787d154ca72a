// Network<T>'s reading members: its nodes, a node by symbol (checked against
// the network's lineage), describe()'s table, and reopen(), a new tape that
// holds a copy of every node under the same symbols and records after them.
#include "graph/describe.hpp"
#include "graph/spec.hpp"
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>

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

template class Network<float>;
template class Network<double>;

}  // namespace topos
