// Which nodes the CUDA backend's kernels implement, and running one node on
// device memory: the bridge from the op table's vocabulary (Node, Shape,
// View) to the plain launches of device_kernels.hpp.
#pragma once

#include "ops/op_info.hpp"

#include <span>

namespace topos::detail::cuda {

// The opcodes the device kernels implement (under some attributes).
std::span<const Opcode> device_opcodes();

// Whether the device kernels implement `node` with these operand shapes and
// it is large enough to gain from the device (products of 64^3 multiply-adds,
// other operations touching 2^14 elements).
bool worth_serving(const NodeView& node, std::span<const Shape> operands);

// Runs `node` on the device: the operands' data and `out` are device pointers.
template <Element T>
void run_on_device(const NodeView& node, std::span<const View<T>> operands, T* out);

}  // namespace topos::detail::cuda
