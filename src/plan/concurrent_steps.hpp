// Independent branches of a plan at once: nearby steps of the schedule that
// are each too small to share the pool's threads themselves, where no step
// reads or writes memory another of them writes, run as one parallel region,
// one step a task. Each step computes what it computes alone, so the bits
// never depend on which thread ran it or when.
#pragma once

#include "plan/plan_state.hpp"

#include <cstddef>
#include <vector>

namespace topos::detail {

// A step runs beside others only with at least this much work (elements read
// and written, or multiply-adds for a product): below it, handing the step to
// another thread costs more than the thread saves.
inline constexpr std::size_t concurrent_step_min_work = 65536;

// Gathers the plan's groups of two or more steps, each of at least
// `min_work`: from each step on, the steps within a short look-ahead that
// conflict with none of the group and none of the steps they would pass join
// it, and move up to run beside it. Reorders `plan.steps` accordingly and sets
// `plan.concurrent`. Any valid order of steps is a valid input.
template <Element T>
void group_concurrent_steps(PlanState<T>& plan, std::size_t min_work = concurrent_step_min_work);

}  // namespace topos::detail
