#include "autodiff/builders.hpp"
#include "autodiff/reverse_scan.hpp"
#include "graph/spec.hpp"
#include <topos/autodiff/adjoints.hpp>
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
    return Network<T>(network_);
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
Field<T> Run<T>::backward(Symbol target) const {
    const Node& node = network_->spec.node(target, "Run::backward");
    if (node.shape().rank() != 0) {
        throw GradientError("Run::backward needs a rank-0 target, but node " +
                            std::to_string(node.index()) + " has shape " + node.shape().str() +
                            "; reduce it first (e.g. sum()) or record tape.vjp with a seed");
    }
    if (!layout_->backward_ready) {
        throw ReadError("Run::backward needs the values the reverse scan reads, but " +
                        layout_->declaration +
                        " frees them; lower the entry with .backward() (a memory posture that "
                        "keeps them), or use Entry::interpret or Network::forward");
    }
    detail::ComputingBuilder<T> build(network_->spec, *layout_, values_);
    const auto adjoints =
        detail::reverse_scan(network_->spec.nodes, node.index(), build.scalar(1.0), build);
    std::vector<Tensor<T>> field(network_->spec.nodes.size());
    std::vector<bool> reached(network_->spec.nodes.size(), false);
    for (std::size_t index = 0; index < adjoints.size(); ++index) {
        if (adjoints[index]) {
            field[index] = build.value(*adjoints[index]);
            reached[index] = true;
        }
    }
    return Field<T>(network_, std::move(field), std::move(reached));
}

template <Element T>
Parameters<T> Run<T>::recorded_gradients(const Adjoints<T>& adjoints) const {
    const detail::ParameterLayout& layout = *network_->parameter_layout;
    std::vector<Tensor<T>> gradients;
    gradients.reserve(layout.symbols.size());
    for (const Symbol& parameter : layout.symbols) {
        gradients.push_back(
            Tensor<T>::filled(network_->spec.nodes[parameter.index()].shape(), T{0}));
    }
    for (const auto& [value, gradient] : adjoints.gradients()) {
        const Node& node = network_->spec.node(value, "Run::recorded_gradients");
        if (node.opcode() == Opcode::Parameter) {
            gradients[layout.slot(value)] = of(gradient);
        }
    }
    return Parameters<T>(network_->parameter_layout, std::move(gradients));
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
Parameters<T> Field<T>::parameters(const Parameters<T>& like) const {
    if (!like.layout()->same_slots(*network_->parameter_layout)) {
        throw SymbolError(
            "Field::parameters needs parameters of the network the field was "
            "computed on");
    }
    std::vector<Tensor<T>> gradients;
    gradients.reserve(like.size());
    for (const Symbol& parameter : like.symbols()) {
        gradients.push_back(of(parameter));
    }
    return Parameters<T>(like.layout(), std::move(gradients));
}

template class Run<float>;
template class Run<double>;
template class Field<float>;
template class Field<double>;

}  // namespace topos
