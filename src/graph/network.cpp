#include "graph/describe.hpp"
#include "graph/spec.hpp"
#include "run/interpreter.hpp"
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/entry.hpp>

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
Parameters<T> Network<T>::parameters() const {
    std::vector<Tensor<T>> values;
    values.reserve(state_->spec.parameters.size());
    for (std::uint32_t index : state_->spec.parameters) {
        values.push_back(state_->spec.payload(index));
    }
    return Parameters<T>(state_->parameter_layout, std::move(values));
}

template <Element T>
Run<T> Network<T>::forward(const Parameters<T>& parameters,
                           std::initializer_list<Feed<T>> feeds) const {
    return forward(parameters, std::span<const Feed<T>>(feeds.begin(), feeds.size()));
}

template <Element T>
Run<T> Network<T>::forward(const Parameters<T>& parameters, std::span<const Feed<T>> feeds) const {
    return Run<T>(
        state_,
        state_->whole_spec,
        detail::interpret(state_->spec, *state_->parameter_layout, parameters, feeds, {}));
}

template <Element T>
Entry<T> Network<T>::entry(std::initializer_list<Symbol> roots) const {
    return Entry<T>(*this, std::vector<Symbol>(roots));
}

template <Element T>
Entry<T> Network<T>::entry(const std::vector<Symbol>& roots) const {
    return Entry<T>(*this, roots);
}

template <Element T>
Tape<T> Network<T>::reopen() const {
    auto tape = std::make_shared<detail::TapeState<T>>();
    tape->spec = state_->spec;
    tape->spec.lineage.push_back(detail::next_tape_id());
    return Tape<T>(std::move(tape));
}

template class Network<float>;
template class Network<double>;

}  // namespace topos
