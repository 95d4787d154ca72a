// The device executor: a Fast plan whose steps the CUDA backend serves keeps
// its arena on the device. One device allocation (reused by the thread) holds
// the arena, sized and laid out like the host arena, the run's stored values
// and the sources; the sources are uploaded once per run and the stored values
// downloaded at the end. A step the backend declines (an elected pattern, an
// opcode without a device kernel) runs on the host reference kernel: its
// operands are downloaded into the host memory first and its results uploaded
// after, so every program still runs.
#pragma once

#include "plan/host_steps.hpp"

namespace topos::detail::cuda {

// Whether any step of the plan is served by the CUDA backend.
template <Element T>
bool runs_on_device(const PlanState<T>& plan);

// Runs every step of the plan; the stored values end in `host.stored`.
template <Element T>
void execute_on_device(const HostMemory<T>& host);

}  // namespace topos::detail::cuda
