// An independent naive reference of every computed opcode, for the kernel
// reference test (tests/ops/kernel_reference_test.cpp): it recomputes a node's
// output from the operand tensors, the node's attributes and shapes, over plain
// multi-dimensional coordinates, and predicts either the exact bits or a value
// within a relative tolerance of the C library in long double.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/node.hpp>
#include <topos/ops/opcode.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace topos::test {

// The relative tolerance against the C library: about 45 ulps of a double. The
// library's functions are within an ulp or two of the true value, and so is a
// long double reference rounded to double.
constexpr double libm_tolerance = 1e-14;

// ---- what a reference predicts ----

using Operands = std::vector<Tensor<double>>;

struct Expected {
    Tensor<double> values;
    // Bit for bit; otherwise within libm_tolerance relative to the larger of
    // |expected| and scale[i] (the magnitude of the terms a fused reduction
    // adds; zeros for the elementwise functions).
    bool exact = true;
    std::vector<double> scale = {};
};

// Whether `actual` agrees with what a reference predicts; a failure names the
// first element that differs. O(elements).
::testing::AssertionResult agrees(const Tensor<double>& actual, const Expected& expected);

// The expected value of `node` from the values of its operands: from the table
// of naive_reference.cpp, or from the opcode's spec (tests/support/op_specs.cpp)
// for an elementwise unary opcode; nullopt when the opcode has neither. Where
// the reference can follow the documented order exactly (elementwise arithmetic,
// Sqrt and Rsqrt, comparisons, layout, indexing, MatMul's ascending fma from +0,
// Fold's and ScatterAdd's ascending accumulation from +0, Sum's striped order,
// Max) it predicts the exact bits; the transcendental functions, Pow and the
// fused reductions are compared with the C library in long double within a
// relative 1e-14 (the library's own exact math differs from the platform's libm
// by design). O(output elements times the terms each reads).
std::optional<Expected> reference_for(const Node& node, const Operands& operands);

// Whether reference_for knows `opcode`.
bool has_reference(Opcode opcode);

}  // namespace topos::test
