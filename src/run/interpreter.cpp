// The reference interpreter: evaluate_node (one node's reference kernel on
// fresh storage), check_feed (a feed must name an input of this network, of its
// recorded shape, holding whole numbers where it is an index input), the
// sources of a run, and interpret, which evaluates the scheduled nodes in node
// order and tallies each as served by the reference.
#include "run/interpreter.hpp"

#include "graph/node_view.hpp"
#include "ops/op_info.hpp"
#include "run/access.hpp"
#include "run/tally_scope.hpp"
#include <topos/core/error.hpp>

#include <array>

namespace topos::detail {

template <Element T>
Tensor<T> evaluate_node(const Node& node, std::span<const Tensor<T>* const> operands) {
    std::array<View<T>, Node::max_operands> views{};
    for (std::size_t i = 0; i < operands.size(); ++i) {
        views[i] = View<T>{operands[i]->data().data(), &operands[i]->shape()};
    }
    const OpInfo& row = op_info(node.opcode());
    if (!row.kernel_runs_for(node.shape())) {
        return Tensor<T>::filled(node.shape(), T{});
    }
    const Kernel<T> kernel = row.template kernel<T>();
    return Tensor<T>::generate(node.shape(), [&](std::span<T> out) {
        kernel(view_of(node), std::span<const View<T>>(views.data(), operands.size()), out.data());
    });
}

template <Element T>
void check_feed(const Spec<T>& spec, const Feed<T>& feed) {
    if (!spec.owns(feed.symbol)) {
        throw FeedError("a feed names symbol %" + std::to_string(feed.symbol.index()) +
                        ", which was not recorded on this network");
    }
    const Node& node = spec.nodes[feed.symbol.index()];
    if (node.opcode() != Opcode::Input) {
        throw FeedError("a feed names node " + std::to_string(node.index()) + " (" +
                        std::string(name_of(node.opcode())) +
                        "), which is not an input; only tape.input(...) nodes are fed "
                        "(parameters come from Parameters)");
    }
    if (node.dtype() == DType::Index) {
        check_indices(feed.value, "a feed");
    }
    if (!(feed.value.shape() == node.shape())) {
        throw FeedError("the feed for input node " + std::to_string(node.index()) + " has shape " +
                        feed.value.shape().str() + ", but the input was recorded with shape " +
                        node.shape().str());
    }
}

template <Element T>
std::vector<const Tensor<T>*> source_values(const Spec<T>& spec,
                                            const ParameterLayout& layout,
                                            const Parameters<T>& parameters,
                                            std::span<const Feed<T>> feeds) {
    if (!RunAccess::layout(parameters).same_slots(layout)) {
        throw SymbolError(
            "these parameters were made for another network (or for a version "
            "of this one with other parameter nodes); use network.parameters()");
    }
    std::vector<const Tensor<T>*> values(spec.nodes.size(), nullptr);
    for (const Feed<T>& feed : feeds) {
        check_feed(spec, feed);
        if (values[feed.symbol.index()] != nullptr) {
            throw FeedError("input node " + std::to_string(feed.symbol.index()) +
                            " is fed twice in one run");
        }
        values[feed.symbol.index()] = &feed.value;
    }
    for (std::size_t slot = 0; slot < spec.parameters.size(); ++slot) {
        values[spec.parameters[slot]] = &parameters.values()[slot];
    }
    for (std::size_t index = 0; index < spec.nodes.size(); ++index) {
        if (values[index] == nullptr && spec.payload_slot[index] != no_payload) {
            values[index] = &spec.payload(static_cast<std::uint32_t>(index));
        }
    }
    return values;
}

template <Element T>
std::vector<Tensor<T>> interpret(const Spec<T>& spec,
                                 const ParameterLayout& layout,
                                 const Parameters<T>& parameters,
                                 std::span<const Feed<T>> feeds,
                                 const std::vector<bool>& scheduled) {
    const std::vector<const Tensor<T>*> sources = source_values(spec, layout, parameters, feeds);
    std::vector<Tensor<T>> values(spec.nodes.size());
    std::array<const Tensor<T>*, Node::max_operands> operands{};
    Tally* tally = active_tally();
    for (std::size_t index = 0; index < spec.nodes.size(); ++index) {
        if (!scheduled.empty() && !scheduled[index]) {
            continue;
        }
        const Node& node = spec.nodes[index];
        if (sources[index] != nullptr) {
            values[index] = *sources[index];
            continue;
        }
        for (std::size_t i = 0; i < node.operands().size(); ++i) {
            operands[i] = &values[node.operands()[i]];
        }
        if (tally != nullptr) {
            tally->add(name_of(node.opcode()), precision_of<T>(), reference_name, Fidelity::Exact);
        }
        values[index] = evaluate_node<T>(
            node, std::span<const Tensor<T>* const>(operands.data(), node.operands().size()));
    }
    return values;
}

template void check_feed(const Spec<float>&, const Feed<float>&);
template void check_feed(const Spec<double>&, const Feed<double>&);
template void check_feed(const Spec<bf16>&, const Feed<bf16>&);
template Tensor<float> evaluate_node(const Node&, std::span<const Tensor<float>* const>);
template Tensor<double> evaluate_node(const Node&, std::span<const Tensor<double>* const>);
template Tensor<bf16> evaluate_node(const Node&, std::span<const Tensor<bf16>* const>);
template std::vector<const Tensor<float>*> source_values(const Spec<float>&,
                                                         const ParameterLayout&,
                                                         const Parameters<float>&,
                                                         std::span<const Feed<float>>);
template std::vector<const Tensor<double>*> source_values(const Spec<double>&,
                                                          const ParameterLayout&,
                                                          const Parameters<double>&,
                                                          std::span<const Feed<double>>);
template std::vector<const Tensor<bf16>*> source_values(const Spec<bf16>&,
                                                        const ParameterLayout&,
                                                        const Parameters<bf16>&,
                                                        std::span<const Feed<bf16>>);
template std::vector<Tensor<float>> interpret(const Spec<float>&,
                                              const ParameterLayout&,
                                              const Parameters<float>&,
                                              std::span<const Feed<float>>,
                                              const std::vector<bool>&);
template std::vector<Tensor<double>> interpret(const Spec<double>&,
                                               const ParameterLayout&,
                                               const Parameters<double>&,
                                               std::span<const Feed<double>>,
                                               const std::vector<bool>&);
template std::vector<Tensor<bf16>> interpret(const Spec<bf16>&,
                                             const ParameterLayout&,
                                             const Parameters<bf16>&,
                                             std::span<const Feed<bf16>>,
                                             const std::vector<bool>&);

}  // namespace topos::detail
