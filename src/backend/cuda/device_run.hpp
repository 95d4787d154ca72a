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

// Takes the plans with a step the CUDA server serves.
const DeviceExecutor& device_executor();

}  // namespace topos::detail::cuda
