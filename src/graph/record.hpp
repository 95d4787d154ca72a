// The recording funnel: every node a tape gains goes through append() or
// append_source(), which check the tape is open and the shapes agree before
// anything is appended.
#pragma once

#include "graph/spec.hpp"

#include <cstdint>
#include <span>

namespace topos::detail {

template <Element T>
std::uint32_t append(TapeState<T>& tape,
                     Opcode opcode,
                     std::span<const std::uint32_t> operands,
                     const Attributes& attributes);

template <Element T>
std::uint32_t append_source(TapeState<T>& tape,
                            Opcode opcode,
                            Tensor<T> payload,
                            DType dtype = DType::Real);

// The numpy-style common shape of two operands; throws ShapeError naming the
// operation, both nodes and both shapes when they do not broadcast.
Shape broadcast_shapes(
    Opcode opcode, std::uint32_t a_node, const Shape& a, std::uint32_t b_node, const Shape& b);

}  // namespace topos::detail
