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
// - Parameters: one row per slot (node, shape, extremes);
// - Adjoints: the target and each (value, gradient node) pair.
//
// Every card is one <div class="topos-card ...">, well-formed, styled by the
// report's style sheet (show::style_sheet()).
#pragma once

#include <topos/autodiff/adjoints.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>
#include <topos/show/html.hpp>

#include <string>

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

// Adjoints: the target and each value's gradient node.
template <Element T>
Html card(const Adjoints<T>& adjoints);

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
extern template Html card(const Tensor<double>&);
extern template Html card(const Tape<double>&);
extern template Html card(const Network<double>&);
extern template Html card(const Plan<double>&);
extern template Html card(const Entry<double>&);
extern template Html card(const Run<double>&);
extern template Html card(const Field<double>&);
extern template Html card(const Parameters<double>&);
extern template Html card(const Adjoints<double>&);

}  // namespace topos::show
