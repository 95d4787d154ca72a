// show::card: an HTML card for each object a user holds, built from its public
// reads only, as a notebook shows it:
//
// - Tensor: element type and shape, the extremes, the mean, non-finite
//   elements counted; the payload as a table when it has at most 400
//   elements (rank 0 to 2; larger ranks show their first matrix), each cell
//   shaded blue below zero and red above it, deeper with its magnitude on a
//   scale centred at 0, a histogram of the finite values otherwise;
// - Tape, Network: the describe() table, each operand reference a link to its
//   node's row, the middle elided past 200 nodes;
// - Plan: the schedule with its liveness words, and the live-volume curve under it;
// - Entry: roots, observed values, numerics, posture;
// - Run: every readable value, each a small tensor summary;
// - Field: the adjoints the reverse scan reached;
// - Parameters: one row per slot (node, shape, extremes), and each slot's name
//   when given a model's named_parameters();
// - Adjoints: the target and each (value, gradient node) pair;
// - Function: its argument kinds, its parameter count and one row per
//   compiled plan (what it computes, input shapes, nodes, patterns);
// - a module (any type with describe(), parameters() and named_parameters():
//   Linear, Mlp, Conv2d, TransformerBlock, a user's model): its description and
//   one row per named parameter (name, node, shape, elements), with each
//   parameter's extremes and mean when given the Parameters that hold them.
//
// Every card is one <div class="topos-card ...">, well-formed, styled by the
// report's style sheet (show::style_sheet()).
#pragma once

#include <topos/autodiff/adjoints.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/function.hpp>
#include <topos/model/module.hpp>
#include <topos/model/named.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>
#include <topos/show/html.hpp>

#include <concepts>
#include <string>
#include <type_traits>
#include <vector>

namespace topos::show {

// A tensor: element type and shape, extremes, non-finite counts, the payload.
template <Element T>
Html card(const Tensor<T>& tensor);

// A tape as recorded so far: its describe() table, operands linked.
template <Element T>
Html card(const Tape<T>& tape);

// A sealed network: its describe() table, operands linked.
template <Element T>
Html card(const Network<T>& network);

// A plan: its schedule with liveness, its patterns, its live-volume curve.
template <Element T>
Html card(const Plan<T>& plan);

// An entry: its roots, observed values, numerics and posture.
template <Element T>
Html card(const Entry<T>& entry);

// A run: every value it made readable.
template <Element T>
Html card(const Run<T>& run);

// A field: every adjoint the reverse scan reached.
template <Element T>
Html card(const Field<T>& field);

// Parameters: one row per slot.
template <Element T>
Html card(const Parameters<T>& parameters);

// Parameters with a name column: `names` as a model's named_parameters()
// gives them. Throws ShowError for a name whose node is not one of the slots.
template <Element T>
Html card(const Parameters<T>& parameters, const std::vector<NamedParameter>& names);

// Adjoints: the target and each value's gradient node.
template <Element T>
Html card(const Adjoints<T>& adjoints);

// A Function: its arguments, its model's parameter count, its compiled plans.
template <Element T>
Html card(const Function<T>& function);

// What a module card is made of (see card(module) below).
template <Element T>
struct ModuleReading {
    std::string description;                // describe()
    std::vector<Value<T>> parameters;       // parameters()
    std::vector<NamedParameter> names;      // named_parameters()
    const Parameters<T>* values = nullptr;  // the payloads, when given
};

// The card of a module read so. Throws ShowError for a name whose node is not
// one of the module's parameters.
template <Element T>
Html module_card(const ModuleReading<T>& module);

// Any module with named parameters: Linear, Mlp, Conv2d, a user's model.
template <class M>
concept CardModule = NamedModule<M> && requires(const M& module) {
    { module.describe() } -> std::convertible_to<std::string>;
    module.parameters();
};

// A module: its description and a row per named parameter.
template <CardModule M>
Html card(const M& module) {
    using T = typename topos::detail::ParameterElement<
        std::remove_cvref_t<decltype(module.parameters())>>::type;
    return module_card<T>({module.describe(), module.parameters(), module.named_parameters()});
}

// The same, each parameter's extremes and mean read from `values`.
template <CardModule M, Element T>
Html card(const M& module, const Parameters<T>& values) {
    return module_card<T>(
        {module.describe(), module.parameters(), module.named_parameters(), &values});
}

// The CSS the cards, plots, pictures and StableHLO blocks use; a report
// includes it once.
const std::string& style_sheet();

extern template Html card(const Tensor<float>&);
extern template Html card(const Tape<float>&);
extern template Html card(const Network<float>&);
extern template Html card(const Plan<float>&);
extern template Html card(const Entry<float>&);
extern template Html card(const Run<float>&);
extern template Html card(const Field<float>&);
extern template Html card(const Parameters<float>&);
extern template Html card(const Adjoints<float>&);
extern template Html card(const Parameters<float>&, const std::vector<NamedParameter>&);
extern template Html card(const Function<float>&);
extern template Html module_card(const ModuleReading<float>&);
extern template Html card(const Tensor<double>&);
extern template Html card(const Tensor<bf16>&);
extern template Html card(const Tape<double>&);
extern template Html card(const Tape<bf16>&);
extern template Html card(const Network<double>&);
extern template Html card(const Network<bf16>&);
extern template Html card(const Plan<double>&);
extern template Html card(const Plan<bf16>&);
extern template Html card(const Entry<double>&);
extern template Html card(const Entry<bf16>&);
extern template Html card(const Run<double>&);
extern template Html card(const Run<bf16>&);
extern template Html card(const Field<double>&);
extern template Html card(const Field<bf16>&);
extern template Html card(const Parameters<double>&);
extern template Html card(const Parameters<bf16>&);
extern template Html card(const Adjoints<double>&);
extern template Html card(const Adjoints<bf16>&);
extern template Html card(const Parameters<double>&, const std::vector<NamedParameter>&);
extern template Html card(const Parameters<bf16>&, const std::vector<NamedParameter>&);
extern template Html card(const Function<double>&);
extern template Html card(const Function<bf16>&);
extern template Html module_card(const ModuleReading<double>&);
extern template Html module_card(const ModuleReading<bf16>&);

}  // namespace topos::show
