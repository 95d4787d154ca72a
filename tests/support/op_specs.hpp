// The test spec of every computed opcode: how to record a small graph that uses
// it on random shapes (size-1 axes included), the input domain that keeps the
// gradient check away from kinks and poles, the gradient tolerance, and a call
// its shape rule must reject. The gradient check (tests/run) and the op-table
// meta-test (tests/graph) both walk this table, so a new op row cannot skip
// testing: the meta-test fails until the row has a spec here.
#pragma once

#include "support/random_graphs.hpp"
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/ops/opcode.hpp>

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

namespace topos::test {

// One recorded use of an opcode: the real sources it reads (parameters and
// inputs, alternating), which the gradient check differentiates and perturbs;
// the node of the opcode under test; and the index sources it reads
// (tape.indices), which no derivative reaches.
struct OpCase {
    std::vector<Value<double>> operands;
    Value<double> output;
    std::vector<Value<double>> discrete = {};
};

// What an elementwise unary opcode computes, for the kernel reference test:
// either the correctly rounded value (the kernel's bits must equal it) or the C
// library's value in long double (the kernel must be within its tolerance).
struct UnaryReference {
    double (*exact)(double x) = nullptr;
    long double (*libm)(long double x) = nullptr;
};

struct OpSpec {
    Opcode opcode;
    // Where the operands are drawn from, and why there.
    const char* domain;
    // Relative tolerance of the reverse scan against finite differences.
    double tolerance;
    // Records one use of `opcode` on shapes and attributes drawn from `rng`.
    OpCase (*record)(Tape<double>& tape, Rng& rng);
    // Records a call the shape rule must reject with a ShapeError.
    void (*record_invalid)(Tape<double>& tape);
    // Part of the advice the rejection must give (how to fix the call).
    const char* advice;
    // For an elementwise unary opcode, what it computes; empty for the others,
    // whose references tests/support/naive_reference.cpp writes out.
    UnaryReference reference = {};
};

// One spec per computed opcode, in opcode order.
std::span<const OpSpec> op_specs();

// The spec of `opcode`, or nullptr when it has none.
const OpSpec* find_op_spec(Opcode opcode);

// The relative tolerance of a bf16 network's gradient against finite
// differences in double at the same bf16 point: every node rounds to bf16's
// eight significant bits, so a few of its units in the last place (2^-8 each),
// more where an opcode's derivative divides or cancels (the table in
// op_specs.cpp says which and why).
double bf16_tolerance(Opcode opcode);

// Every computed (non-source) opcode, in order: what the parametrised tests run over.
std::vector<Opcode> computed_opcodes();

// A test's name from its opcode, for suites instantiated over computed_opcodes().
std::string opcode_name(const ::testing::TestParamInfo<Opcode>& info);

}  // namespace topos::test
