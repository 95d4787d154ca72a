// Raising: an elected pattern emitted as the named StableHLO operation it
// stands for. A WindowProduct becomes stablehlo.convolution (its transposed
// form, a filter gradient, a convolution of the image by the gradient), a
// ReduceWindow stablehlo.reduce_window, a batch norm
// stablehlo.batch_norm_training or stablehlo.batch_norm_inference. A Map is a
// loop fusion with no named operation, and a batch norm whose epsilon is not
// one constant, or whose counts are not the true element count per channel,
// is not what the named operation computes: those do not raise, and their
// members emit their original operations.
#pragma once

#include "hlo/builder.hpp"
#include "pattern/match.hpp"
#include "plan/plan_state.hpp"

#include <vector>

namespace topos::detail {

template <Element T>
bool raises(const PlanState<T>& plan, const Election& election);

// The match's inputs the named operation reads: all but a batch norm's
// epsilon and counts, which become attributes or are implied.
std::vector<std::uint32_t> raised_operands(const Match& match);

// Emits the named operation at the match's root. Returns the values of the
// match's results, in Match::results order.
template <Element T>
std::vector<HloValue> raise(HloBuilder& build, const PlanState<T>& plan, const Match& match);

}  // namespace topos::detail
