// A run's memory on the host and one step executed in it: the plan's own
// executor runs every step this way; the device executor (CUDA) runs here the
// steps its backend declines.
#pragma once

#include "plan/plan_state.hpp"

#include <memory>
#include <span>

namespace topos::detail {

// Where one run's values live on the host.
template <Element T>
struct HostMemory {
    const PlanState<T>& plan;
    std::span<const Tensor<T>* const> sources;  // by source index
    std::span<T> arena;
    std::span<const std::shared_ptr<T[]>> stored;  // by run slot; null for sources

    // Where a step writes (null for a source).
    T* address(const Location& location) const;
    const T* read_address(const Location& location) const;
};

// Runs the step's kernel (or its elected pattern) on the host and reports it
// to the active tally.
template <Element T>
void run_host_step(const HostMemory<T>& memory, const Step<T>& step);

// Runs steps that may run at once (a StepGroup's) as one region on the
// library's threads, then reports them to the active tally in order. A failing
// step's exception is rethrown, the first in order when several fail.
template <Element T>
void run_host_steps_at_once(const HostMemory<T>& memory, std::span<const Step<T>> steps);

// Reports a step run by its own kernel to the active tally, if any.
template <Element T>
void tally_kernel_step(const Step<T>& step);

}  // namespace topos::detail
