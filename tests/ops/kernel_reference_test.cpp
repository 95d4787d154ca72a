// Every opcode's reference kernel against the independent naive reference of
// tests/support/naive_reference.hpp, one instance per computed opcode (the spec records a random
// use, Network::forward evaluates it; an opcode without a reference fails), then hand-picked uses
// that show what random specs seldom do: accumulation orders and starting zeros in the bits,
// strides, dilation, interior padding and extreme logits.
#include "support/naive_reference.hpp"
#include "support/op_specs.hpp"
#include "support/random_graphs.hpp"
#include <topos/graph/network.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/ops/opcode.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace topos {
namespace {

using test::agrees;
using test::Expected;
using test::has_reference;
using test::Operands;
using test::reference_for;

constexpr std::uint64_t seeds_per_opcode = 16;

// Seals the tape, evaluates it and compares the node `output` names with its
// reference, computed from the operand values the run holds.
::testing::AssertionResult matches_reference(Tape<double>&& tape, Symbol output) {
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters(), {});
    const Node& node = network.node(output);
    Operands operands;
    for (std::uint32_t operand : node.operands()) {
        operands.push_back(run.of(network.nodes()[operand].symbol()));
    }
    const std::optional<Expected> expected = reference_for(node, operands);
    if (!expected) {
        return ::testing::AssertionFailure() << "no naive reference for " << node.opcode();
    }
    return agrees(run.of(output), *expected) << "\n" << network.describe();
}

class ReferenceKernel : public ::testing::TestWithParam<Opcode> {};

TEST_P(ReferenceKernel, AgreesWithANaiveReferenceOnRandomUses) {
    const Opcode opcode = GetParam();
    const test::OpSpec* spec = test::find_op_spec(opcode);
    ASSERT_NE(spec, nullptr) << "no test spec for " << opcode
                             << "; add one to tests/support/op_specs.cpp";
    ASSERT_TRUE(has_reference(opcode))
        << "no naive reference for " << opcode << ": an elementwise unary opcode gives one in "
        << "its spec (tests/support/op_specs.cpp), any other in the table of "
        << "tests/support/naive_reference.cpp";
    for (std::uint64_t seed = 1; seed <= seeds_per_opcode; ++seed) {
        Tape<double> tape;
        test::Rng rng(seed);
        const Value<double> output = spec->record(tape, rng).output;
        ASSERT_EQ(tape.nodes()[output.index()].opcode(), opcode);
        EXPECT_TRUE(matches_reference(std::move(tape), output)) << "seed " << seed;
    }
}

// Over every computed opcode of the enum, not over the reference table: an
// opcode without a reference fails.
INSTANTIATE_TEST_SUITE_P(EveryComputedOpcode,
                         ReferenceKernel,
                         ::testing::ValuesIn(test::computed_opcodes()),
                         test::opcode_name);

// Elements of magnitude 2^-10 to 2^11 with full 53-bit significands. The specs
// draw uniformly from [-1, 1], a grid of multiples of 2^-52, on which short sums
// are exact in any order; these make every sum round, so that the order of
// accumulation shows in the bits.
Tensor<double> scattered(test::Rng& rng, const Shape& shape) {
    return Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (double& element : out) {
            const double scale = std::ldexp(1.0, static_cast<int>(rng.between(0, 20)) - 10);
            element = rng.away_from_zero(1.0, 2.0) * scale;
        }
    });
}

Tensor<double> negative_zeros(const Shape& shape) {
    return Tensor<double>::filled(shape, -0.0);
}

// Uses the specs draw seldom or never: many rounding terms per output (Sum's
// lanes, MatMul's fma chain, Fold's overlapping windows, ScatterAdd's repeated
// picks), negative zeros that show where an accumulation starts (-0 for Sum's
// partials, +0 for MatMul, Fold and ScatterAdd), a permutation that is not its
// own inverse, strides, dilation and interior padding, and extreme logits.
TEST(ReferenceKernel, AgreesWithANaiveReferenceWhereOrderAndAttributesShow) {
    using Use = Value<double> (*)(Tape<double>&, test::Rng&);
    const std::array<Use, 18> uses{
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {37, 3})).sum(0);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {2, 40})).sum(1);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {5, 7})).sum();
        },
        [](Tape<double>& t, test::Rng&) {
            return t.parameter(negative_zeros({3, 20})).sum(1);
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(scattered(r, {2, 3, 20}));
            return a.apply(Opcode::MatMul, {a, t.input(scattered(r, {2, 20, 4}))});
        },
        [](Tape<double>& t, test::Rng&) {
            const auto a = t.parameter(Tensor<double>::filled({2, 3}, 1.0));
            return a.apply(Opcode::MatMul, {a, t.input(negative_zeros({3, 2}))});
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {2, 9, 4})).fold(1, 4, 1, 1, 12);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {6, 3})).fold(0, 3, 1, 2, 10);
        },
        [](Tape<double>& t, test::Rng&) {
            return t.parameter(negative_zeros({4, 3})).fold(0, 3, 2, 1, 10);
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto picks = t.indices({2, 4}, {1, 0, 1, 1, 0, 1, 1, 0});
            const auto updates = t.parameter(scattered(r, {2, 4, 3}));
            return picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{3});
        },
        [](Tape<double>& t, test::Rng&) {
            const auto picks = t.indices({3}, {1, 1, 0});
            const auto updates = t.parameter(negative_zeros({3, 2}));
            return picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{3});
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(r.tensor<double>({2, 3, 4, 5}, -1.0, 1.0)).permute({2, 0, 3, 1});
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(r.tensor<double>({3, 10}, -1.0, 1.0));
            return a.apply(Opcode::Slice, {a}, SliceAttributes{1, 1, 3, 3});
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(r.tensor<double>({2, 3, 2}, -1.0, 1.0)).pad(1, 1, 2, 2);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(r.tensor<double>({2, 9}, -1.0, 1.0)).unfold(1, 3, 2, 2);
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto table = t.parameter(r.tensor<double>({4, 2, 3}, -1.0, 1.0));
            return table.apply(Opcode::Gather, {table, t.indices({2, 3}, {3, 0, 3, 1, 2, 0})});
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(r.tensor<double>({3, 25}, -800.0, 800.0));
            return a.apply(Opcode::LogSumExp, {a}, AxisAttributes{1});
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(r.tensor<double>({25, 3}, -800.0, 800.0));
            return a.apply(Opcode::LogSoftmax, {a}, AxisAttributes{0});
        },
    };
    for (std::size_t use = 0; use < uses.size(); ++use) {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            Tape<double> tape;
            test::Rng rng(seed);
            const Value<double> output = uses[use](tape, rng);
            EXPECT_TRUE(matches_reference(std::move(tape), output))
                << "use " << use << ", seed " << seed;
        }
    }
}

}  // namespace
}  // namespace topos
