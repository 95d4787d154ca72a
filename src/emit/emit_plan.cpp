// Plan::emit_stablehlo: a reading of the plan, beside describe. @main takes the
// scheduled parameters and inputs (in node order) as arguments, writes each
// scheduled leaf as a constant and each computed node through its row's
// lowering, and returns the declared values in declaration order. An elected
// pattern that raises (pattern/catalog.hpp) is emitted at its root as the named
// operation it stands for, and its interior emits nothing.
#include "graph/node_view.hpp"
#include "hlo/builder.hpp"
#include "hlo/literals.hpp"
#include "hlo/module.hpp"
#include "pattern/catalog.hpp"
#include "plan/plan_state.hpp"
#include <topos/core/error.hpp>
#include <topos/emit/stablehlo.hpp>
#include <topos/plan/plan.hpp>

#include <algorithm>
#include <optional>
#include <ostream>
#include <span>
#include <vector>

namespace topos {
namespace detail {
namespace {

// What raising reads of the plan's network: the uniform value of a Leaf.
template <Element T>
RaiseContext raise_context(const PlanState<T>& plan) {
    const Spec<T>& spec = plan.network->spec;
    const auto uniform_leaf = [&spec](std::uint32_t node) -> std::optional<double> {
        if (spec.nodes[node].opcode() != Opcode::Leaf) {
            return std::nullopt;
        }
        const std::span<const T> values = spec.payload(node).data();
        if (values.empty() || !std::all_of(values.begin(), values.end(), [&](T value) {
                return value == values.front();
            })) {
            return std::nullopt;
        }
        return static_cast<double>(values.front());
    };
    return {uniform_leaf, !std::same_as<T, double>};
}

// What the elections make of each node: the raised election rooted there, and
// whether it emits nothing: a node a raised election covers that no emitted
// node reads (the election's results other than the root take the root
// operation's values), or a leaf nothing emitted reads (a batch norm's epsilon
// and counts, which the named operation does not take as operands).
struct Raising {
    std::vector<const Match*> rooted;  // by node index
    std::vector<bool> silent;          // by node index
};

// Roots and covered nodes of the elections that raise; `written` marks their
// results, which the root's operation produces.
template <Element T>
Raising raised_elections(const PlanState<T>& plan,
                         const RaiseContext& context,
                         std::vector<bool>& written) {
    const std::size_t count = plan.network->spec.nodes.size();
    Raising raising{std::vector<const Match*>(count, nullptr), std::vector<bool>(count, false)};
    if constexpr (!ComputeElement<T>) {
        return raising;  // a bf16 module writes each operation in f32 between converts
    }
    for (const Election& election : plan.elections) {
        if (!raises(election.match, context)) {
            continue;
        }
        const Match& match = election.match;
        raising.rooted[match.root] = &match;
        for (std::uint32_t node : match.nodes) {
            if (node != match.root) {
                raising.silent[node] = true;
            }
        }
        for (std::uint32_t result : match.results) {
            written[result] = true;
        }
    }
    return raising;
}

// From the last node back: a covered node an emitted node reads is emitted
// after all (unless the root's operation writes it), and a leaf nothing
// emitted reads is not.
template <Element T>
void emit_what_is_read(const PlanState<T>& plan,
                       const std::vector<bool>& written,
                       Raising& raising) {
    std::vector<bool> read(written.size(), false);
    for (const Symbol& declared : plan.entry.declared()) {
        read[plan.computed_as(declared.index())] = true;
    }
    for (auto node = plan.nodes.rbegin(); node != plan.nodes.rend(); ++node) {
        const std::uint32_t index = node->index();
        raising.silent[index] = (raising.silent[index] && (!read[index] || written[index])) ||
                                (node->opcode() == Opcode::Leaf && !read[index]);
        if (raising.silent[index]) {
            continue;
        }
        const Match* match = raising.rooted[index];
        const std::vector<std::uint32_t> operands =
            match != nullptr
                ? raised_operands(*match)
                : std::vector<std::uint32_t>(node->operands().begin(), node->operands().end());
        for (std::uint32_t operand : operands) {
            read[operand] = true;
        }
    }
}

template <Element T>
Raising raising_of(const PlanState<T>& plan, const RaiseContext& context) {
    std::vector<bool> written(plan.network->spec.nodes.size(), false);
    Raising raising = raised_elections(plan, context, written);
    emit_what_is_read(plan, written, raising);
    return raising;
}

// The node as the builder names it and checks what its rule returns.
HloSite site_of(const Node& node) {
    return {node.index(),
            node.operands(),
            node.shape(),
            name_of(node.opcode()),
            op_info(node.opcode()).index_operands};
}

template <Element T>
void raise_at_root(HloBuilder& build,
                   const PlanState<T>& plan,
                   const RaiseContext& context,
                   const Match& match,
                   std::span<HloValue> values) {
    build.begin(site_of(plan.graph_nodes()[match.root]));
    const std::vector<HloValue> results = raise(build, match, context);
    values[match.root] = build.finish(results[0]);
    for (std::size_t i = 1; i < results.size(); ++i) {
        values[match.results[i]] = results[i];
    }
}

// The one place a computed node becomes its row's StableHLO operations.
HloValue lower_node(HloBuilder& build, const Node& node) {
    build.begin(site_of(node));
    return build.finish(op_info(node.opcode()).lower(build, view_of(node)));
}

template <Element T>
HloValue leaf_constant(HloBuilder& build, const Node& node, const Tensor<T>& payload) {
    build.begin(site_of(node));
    const HloElement element = std::same_as<T, bf16> ? HloElement::Stored : HloElement::Real;
    return build.finish(
        build.constant(dense_literal(payload.data(), node.shape()), node.shape(), element));
}

template <Element T>
HloModule module_of(const PlanState<T>& plan) {
    HloModule module;
    module.real_type = std::same_as<T, double> ? "f64" : "f32";
    module.stored_type = std::same_as<T, bf16> ? "bf16" : "";
    const HloElement stored = std::same_as<T, bf16> ? HloElement::Stored : HloElement::Real;
    std::vector<HloValue> values(plan.network->spec.nodes.size());
    HloBuilder build(module, values);
    const RaiseContext context = raise_context(plan);
    const Raising raising = raising_of(plan, context);
    for (const Node& node : plan.nodes) {
        const Opcode opcode = node.opcode();
        if (raising.silent[node.index()]) {
            continue;
        }
        if (raising.rooted[node.index()] != nullptr) {
            raise_at_root(build, plan, context, *raising.rooted[node.index()], values);
        } else if (opcode == Opcode::Parameter || opcode == Opcode::Input) {
            const std::string name = "arg" + std::to_string(module.main.arguments.size());
            values[node.index()] = module.add_value({node.shape(), stored}, name);
            module.main.arguments.push_back(values[node.index()]);
        } else if (opcode == Opcode::Leaf) {
            values[node.index()] =
                leaf_constant(build, node, plan.network->spec.payload(node.index()));
        } else {
            values[node.index()] = lower_node(build, node);
        }
    }
    for (const Symbol& declared : plan.entry.declared()) {
        module.results.push_back(values[plan.computed_as(declared.index())]);
    }
    return module;
}

}  // namespace
}  // namespace detail

std::ostream& operator<<(std::ostream& out, MlirForm form) {
    switch (form) {
        case MlirForm::Pretty:
            return out << "Pretty";
        case MlirForm::Generic:
            return out << "Generic";
    }
    return out;
}

template <Element T>
std::string Plan<T>::emit_stablehlo() const {
    return emit_stablehlo(MlirForm::Pretty);
}

template <Element T>
std::string Plan<T>::emit_stablehlo(MlirForm form) const {
    const detail::HloModule module = detail::module_of(*state_);
    switch (form) {
        case MlirForm::Pretty:
            return detail::print_pretty(module);
        case MlirForm::Generic:
            return detail::print_generic(module);
    }
    throw EmitError("unknown MLIR form " + std::to_string(static_cast<int>(form)));
}

template std::string Plan<float>::emit_stablehlo() const;
template std::string Plan<double>::emit_stablehlo() const;
template std::string Plan<bf16>::emit_stablehlo() const;
template std::string Plan<float>::emit_stablehlo(MlirForm) const;
template std::string Plan<double>::emit_stablehlo(MlirForm) const;
template std::string Plan<bf16>::emit_stablehlo(MlirForm) const;

}  // namespace topos
