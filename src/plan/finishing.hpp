// When each declared value of a plan is final: after the step that writes it
// (an elected pattern's step writes each of its results), or before the first
// step for a value read from a parameter, an input or a leaf. Plan::forward
// reports them to a StepObserver in this order.
#pragma once

#include "plan/plan_state.hpp"

#include <vector>

namespace topos::detail {

// Sets plan.finish_order and plan.finished_after from the plan's steps (in
// their final order) and its run layout. On a device executor every value is
// reported after the last step.
template <Element T>
void order_finishing(PlanState<T>& plan, const std::vector<Symbol>& declared_values);

}  // namespace topos::detail
