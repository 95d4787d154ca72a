// The recording helpers the files defining Value<T> share: a constant Leaf
// recorded beside a value, and a binary operation whose operands are first
// broadcast numpy-style into explicit BroadcastAlong and Reshape nodes.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/value.hpp>
#include <topos/ops/opcode.hpp>

namespace topos::detail {

// Records `payload` as a Leaf on the tape `anchor` was recorded on (value.cpp).
template <Element T>
Value<T> constant(const Value<T>& anchor, Tensor<T> payload);

// Records `opcode` over `a` and `b` broadcast to their common shape; throws
// ShapeError when the shapes do not broadcast, TapeError when the operands are
// on different tapes (value_broadcasting.cpp).
template <Element T>
Value<T> broadcast_binary(Opcode opcode,
                          const Value<T>& a,
                          const Value<T>& b,
                          const Attributes& attributes = NoAttributes{});

}  // namespace topos::detail
