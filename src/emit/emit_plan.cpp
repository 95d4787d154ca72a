// Plan::emit_stablehlo: a reading of the plan, beside describe. @main takes the
// scheduled parameters and inputs (in node order) as arguments, writes each
// scheduled leaf as a constant and each computed node through its row's
// lowering, and returns the declared values in declaration order.
#include "emit/hlo_builder.hpp"
#include "emit/hlo_module.hpp"
#include "emit/literals.hpp"
#include "ops/op_info.hpp"
#include "plan/plan_state.hpp"
#include <topos/core/error.hpp>
#include <topos/emit/stablehlo.hpp>
#include <topos/plan/plan.hpp>

#include <ostream>

namespace topos {
namespace detail {
namespace {

// The one place a computed node becomes StableHLO operations. Pattern elections
// will be consulted here: an elected group's root emits the named operation the
// pattern stands for, its fused interior nothing.
HloValue lower_node(HloBuilder& build, const Node& node) {
    build.begin(node);
    const LowerRule lower = op_info(node.opcode()).lower;
    if (lower == nullptr) {
        build.fail("its op row has no lowering");
    }
    return build.finish(lower(build));
}

template <Element T>
HloValue leaf_constant(HloBuilder& build, const Node& node, const Tensor<T>& payload) {
    build.begin(node);
    return build.finish(build.constant(dense_literal(payload.data(), node.shape()), node.shape()));
}

template <Element T>
HloModule module_of(const PlanState<T>& plan) {
    HloModule module;
    module.real_type = std::same_as<T, float> ? "f32" : "f64";
    std::vector<HloValue> values(plan.network->spec.nodes.size());
    HloBuilder build(module, values);
    for (const Node& node : plan.nodes) {
        const Opcode opcode = node.opcode();
        if (opcode == Opcode::Parameter || opcode == Opcode::Input) {
            const std::string name = "arg" + std::to_string(module.main.arguments.size());
            values[node.index()] = module.add_value({node.shape(), HloElement::Real}, name);
            module.main.arguments.push_back(values[node.index()]);
        } else if (opcode == Opcode::Leaf) {
            values[node.index()] =
                leaf_constant(build, node, plan.network->spec.payload(node.index()));
        } else {
            values[node.index()] = lower_node(build, node);
        }
    }
    for (const Symbol& declared : plan.entry.declared()) {
        module.results.push_back(values[declared.index()]);
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

template std::string Plan<float>::emit_stablehlo(MlirForm) const;
template std::string Plan<double>::emit_stablehlo(MlirForm) const;

}  // namespace topos
