// Run<T> and Field<T>: a run's values read by symbol (ReadError for a value the
// entry or plan did not declare), and a field's adjoints, zeros for a node the
// reverse scan did not reach, gathered into Parameters for the parameters.
#include "graph/spec.hpp"
#include "run/access.hpp"
#include "run/run_layout.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/run/run.hpp>

namespace topos {

template <Element T>
Run<T>::Run(std::shared_ptr<const detail::NetworkState<T>> network,
            std::shared_ptr<const detail::RunLayout> layout,
            std::vector<Tensor<T>> values)
    : network_(std::move(network)), layout_(std::move(layout)), values_(std::move(values)) {}

template <Element T>
Network<T> Run<T>::network() const {
    return detail::GraphAccess::network<T>(network_);
}

template <Element T>
const Tensor<T>& Run<T>::of(Symbol node) const {
    const Node& found = network_->spec.node(node, "Run::of");
    if (!layout_->readable[found.index()]) {
        throw ReadError("node " + std::to_string(found.index()) + " (" +
                        std::string(name_of(found.opcode())) +
                        ") is not readable: " + layout_->declaration +
                        " does not declare it; add it to the entry's roots or observe({...})");
    }
    return values_[static_cast<std::size_t>(layout_->slot[found.index()])];
}

template <Element T>
bool Run<T>::readable(Symbol node) const {
    const Node& found = network_->spec.node(node, "Run::readable");
    return layout_->readable[found.index()];
}

template <Element T>
Field<T>::Field(std::shared_ptr<const detail::NetworkState<T>> network,
                std::vector<Tensor<T>> adjoints,
                std::vector<bool> reached)
    : network_(std::move(network)), adjoints_(std::move(adjoints)), reached_(std::move(reached)) {}

template <Element T>
Tensor<T> Field<T>::of(Symbol node) const {
    const Node& found = network_->spec.node(node, "Field::of");
    if (reached_[found.index()]) {
        return adjoints_[found.index()];
    }
    return Tensor<T>::filled(found.shape(), T{0});
}

template <Element T>
bool Field<T>::reached(Symbol node) const {
    return reached_[network_->spec.node(node, "Field::reached").index()];
}

template <Element T>
Network<T> Field<T>::network() const {
    return detail::GraphAccess::network<T>(network_);
}

template <Element T>
Parameters<T> Field<T>::parameters(const Parameters<T>& like) const {
    if (!detail::RunAccess::layout(like).same_slots(*network_->parameter_layout)) {
        throw SymbolError(
            "Field::parameters needs parameters of the network the field was "
            "computed on");
    }
    std::vector<Tensor<T>> gradients;
    gradients.reserve(like.size());
    for (const Symbol& parameter : like.symbols()) {
        gradients.push_back(of(parameter));
    }
    return like.with_values(std::move(gradients));
}

template class Run<float>;
template class Run<double>;
template class Run<bf16>;
template class Field<float>;
template class Field<double>;
template class Field<bf16>;

}  // namespace topos
