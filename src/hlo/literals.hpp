// Number literals for StableHLO constants: the shortest decimal that parses back
// to the same value (with a `.`, as MLIR's float literals need), and the IEEE
// bits in hexadecimal (`0x7F800000`) for infinities and NaNs, which have no
// decimal spelling, and for the rare float whose shortest decimal would round
// differently through MLIR's parser (decimal to double, then to float).
#pragma once

#include <topos/core/bf16.hpp>
#include <topos/core/shape.hpp>

#include <span>
#include <string>

namespace topos::detail {

std::string real_literal(float value);
std::string real_literal(double value);
std::string real_literal(bf16 value);

// The body of `dense<...>`: one literal for a rank-0 tensor or when every
// element has the same bits (a splat), nested brackets otherwise, nothing for
// a tensor without elements.
template <class T>
std::string dense_literal(std::span<const T> values, const Shape& shape);

}  // namespace topos::detail
