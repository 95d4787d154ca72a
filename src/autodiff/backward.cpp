// Run::backward, the engine's reverse scan over a run's values, and
// Run::recorded_gradients: the members of the engine's Run that the autodiff
// layer defines.
#include "autodiff/builders.hpp"
#include "autodiff/reverse_scan.hpp"
#include "graph/spec.hpp"
#include "run/access.hpp"
#include "run/run_layout.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/run/run.hpp>

#include <vector>

namespace topos {

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
    return detail::RunAccess::field<T>(network_, std::move(field), std::move(reached));
}

template <Element T>
Parameters<T> Run<T>::recorded_gradients(const Adjoints<T>& adjoints) const {
    const detail::ParameterLayout& layout = *network_->parameter_layout;
    std::vector<Tensor<T>> gradients(layout.symbols.size());
    std::vector<bool> recorded(layout.symbols.size(), false);
    for (const auto& [value, gradient] : adjoints.gradients()) {
        const Node& node = network_->spec.node(value, "Run::recorded_gradients");
        if (node.opcode() == Opcode::Parameter) {
            gradients[layout.slot(value)] = of(gradient);
            recorded[layout.slot(value)] = true;
        }
    }
    for (std::size_t slot = 0; slot < gradients.size(); ++slot) {
        if (!recorded[slot]) {
            const Symbol parameter = layout.symbols[slot];
            gradients[slot] =
                Tensor<T>::filled(network_->spec.nodes[parameter.index()].shape(), T{0});
        }
    }
    return detail::RunAccess::parameters<T>(network_->parameter_layout, std::move(gradients));
}

template Field<float> Run<float>::backward(Symbol) const;
template Field<double> Run<double>::backward(Symbol) const;
template Field<bf16> Run<bf16>::backward(Symbol) const;
template Parameters<float> Run<float>::recorded_gradients(const Adjoints<float>&) const;
template Parameters<double> Run<double>::recorded_gradients(const Adjoints<double>&) const;
template Parameters<bf16> Run<bf16>::recorded_gradients(const Adjoints<bf16>&) const;

}  // namespace topos
