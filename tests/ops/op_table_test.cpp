// The op table, row by row: every computed opcode carries an arity, a shape
// rule, both reference kernels, a derivative rule and a StableHLO lowering;
// sources carry none; a row that lacks a piece is refused with a message that
// names it; elementwise rows keep their operands' shape.
// Every computed opcode has a test spec (tests/support/op_specs.cpp), so a new
// row cannot skip the gradient check; and each shape rule rejects a bad call
// with a ShapeError that names the operation and says how to fix the call.
#include "ops/op_info.hpp"
#include "support/op_specs.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/tape.hpp>
#include <topos/ops/opcode.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

namespace topos {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(OpTable, HoldsRowIAtOpcodeI) {
    for (std::size_t i = 0; i < opcode_count; ++i) {
        const Opcode opcode = static_cast<Opcode>(i);
        EXPECT_EQ(detail::op_info(opcode).opcode, opcode) << "row " << i;
    }
}

TEST(OpTable, GivesEveryComputedOpcodeACompleteRow) {
    for (const Opcode opcode : test::computed_opcodes()) {
        const detail::OpInfo& row = detail::op_info(opcode);
        SCOPED_TRACE(std::string(name_of(opcode)));
        EXPECT_NE(row.kind, detail::OpKind::Source);
        EXPECT_GE(row.arity, 1u);
        EXPECT_LE(row.arity, Node::max_operands);
        EXPECT_NE(row.infer, nullptr);
        EXPECT_NE(row.kernel_f32, nullptr);
        EXPECT_NE(row.kernel_f64, nullptr);
        EXPECT_NE(row.kernel<float>(), nullptr);
        EXPECT_NE(row.kernel<double>(), nullptr);
        EXPECT_NE(row.vjp, nullptr);
        EXPECT_NE(row.lower, nullptr);
    }
}

TEST(OpTable, GivesSourcesNoShapeRuleKernelOrDerivative) {
    std::size_t sources = 0;
    for (std::size_t i = 0; i < opcode_count; ++i) {
        const Opcode opcode = static_cast<Opcode>(i);
        if (!is_source(opcode)) {
            continue;
        }
        ++sources;
        const detail::OpInfo& row = detail::op_info(opcode);
        SCOPED_TRACE(std::string(name_of(opcode)));
        EXPECT_EQ(row.kind, detail::OpKind::Source);
        EXPECT_EQ(row.arity, 0u);
        EXPECT_EQ(row.infer, nullptr);
        EXPECT_EQ(row.kernel_f32, nullptr);
        EXPECT_EQ(row.kernel_f64, nullptr);
        EXPECT_EQ(row.vjp, nullptr);
        EXPECT_EQ(row.lower, nullptr);  // the emitter writes sources as arguments and constants
    }
    EXPECT_EQ(sources, 3u);
    EXPECT_TRUE(is_source(Opcode::Parameter));
    EXPECT_TRUE(is_source(Opcode::Input));
    EXPECT_TRUE(is_source(Opcode::Leaf));
}

// Each piece a row may lack, and the words the refusal uses for it.
TEST(OpTable, RefusesAnIncompleteRowNamingTheMissingPiece) {
    const detail::OpInfo complete = detail::op_info(Opcode::Tanh);
    EXPECT_NO_THROW(detail::check_row(complete, Opcode::Tanh));
    const auto refusal = [&](auto remove) {
        detail::OpInfo row = complete;
        remove(row);
        try {
            detail::check_row(row, Opcode::Tanh);
        } catch (const Error& error) {
            return std::string(error.what());
        }
        return std::string("accepted");
    };
    const auto starts = StartsWith("the op table's row of Tanh (built by tanh_row() in src/ops/)");
    EXPECT_THAT(refusal([](auto& row) { row.lower = nullptr; }), starts);
    EXPECT_THAT(refusal([](auto& row) { row.lower = nullptr; }),
                HasSubstr("has no StableHLO lowering"));
    EXPECT_THAT(refusal([](auto& row) { row.vjp = nullptr; }), HasSubstr("no derivative rule"));
    EXPECT_THAT(refusal([](auto& row) { row.infer = nullptr; }), HasSubstr("no shape rule"));
    EXPECT_THAT(refusal([](auto& row) { row.kernel_f64 = nullptr; }),
                HasSubstr("no reference kernel"));
    EXPECT_THAT(refusal([](auto& row) { row.arity = 0; }), HasSubstr("no arity"));
    EXPECT_THAT(refusal([](auto& row) { row.opcode = Opcode::Exp; }),
                HasSubstr("is for Exp; the list puts it elsewhere"));
}

TEST(OpTable, NamesEveryOpcodeUniquely) {
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < opcode_count; ++i) {
        names.insert(name_of(static_cast<Opcode>(i)));
    }
    EXPECT_EQ(names.size(), opcode_count);
}

TEST(OpTable, HasATestSpecForEveryComputedOpcode) {
    for (const Opcode opcode : test::computed_opcodes()) {
        const test::OpSpec* spec = test::find_op_spec(opcode);
        ASSERT_NE(spec, nullptr) << name_of(opcode)
                                 << " has no test spec: add one to tests/support/op_specs.cpp";
        EXPECT_NE(spec->record, nullptr) << name_of(opcode);
        EXPECT_NE(spec->record_invalid, nullptr) << name_of(opcode);
        EXPECT_NE(spec->domain, nullptr) << name_of(opcode);
        EXPECT_NE(spec->advice, nullptr) << name_of(opcode);
        EXPECT_GT(spec->tolerance, 0.0) << name_of(opcode);
        EXPECT_LE(spec->tolerance, 1e-4)
            << name_of(opcode) << ": a tolerance that loose hides bugs";
    }
}

TEST(OpTable, HasNoTestSpecForASourceOrTwoForOneOpcode) {
    std::set<Opcode> seen;
    for (const test::OpSpec& spec : test::op_specs()) {
        EXPECT_FALSE(is_source(spec.opcode)) << name_of(spec.opcode);
        EXPECT_TRUE(seen.insert(spec.opcode).second) << "two specs for " << name_of(spec.opcode);
    }
}

class OpRow : public ::testing::TestWithParam<Opcode> {};

// The spec records one use of the opcode on random shapes: its last node is the
// opcode, it reads as many operands as the row's arity, and the shape the rule
// inferred is the shape recorded.
TEST_P(OpRow, SpecRecordsTheOpcodeWithTheRowsArity) {
    const test::OpSpec* spec = test::find_op_spec(GetParam());
    ASSERT_NE(spec, nullptr);
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        test::Rng rng(seed);
        Tape<double> tape;
        const test::OpCase recorded = spec->record(tape, rng);
        const Node& node = tape.nodes()[recorded.output.index()];
        EXPECT_EQ(node.opcode(), GetParam());
        EXPECT_EQ(node.operands().size(), detail::op_info(GetParam()).arity);
        EXPECT_EQ(node.shape(), recorded.output.shape());
    }
}

// The spec's index sources sit exactly at the operand positions the row marks
// as indices, and everything else it reads is real.
TEST_P(OpRow, SpecFeedsIndicesExactlyWhereTheRowReadsThem) {
    const test::OpSpec* spec = test::find_op_spec(GetParam());
    ASSERT_NE(spec, nullptr);
    const detail::OpInfo& row = detail::op_info(GetParam());
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        test::Rng rng(seed);
        Tape<double> tape;
        const test::OpCase recorded = spec->record(tape, rng);
        const Node& node = tape.nodes()[recorded.output.index()];
        for (std::size_t i = 0; i < node.operands().size(); ++i) {
            const bool index = ((row.index_operands >> i) & 1U) != 0;
            EXPECT_EQ(tape.nodes()[node.operands()[i]].dtype() == DType::Index, index)
                << "operand " << i;
        }
        for (const Value<double>& source : recorded.discrete) {
            EXPECT_EQ(tape.nodes()[source.index()].dtype(), DType::Index);
        }
        for (const Value<double>& source : recorded.operands) {
            EXPECT_EQ(tape.nodes()[source.index()].dtype(), DType::Real);
            EXPECT_TRUE(is_source(tape.nodes()[source.index()].opcode()));
        }
    }
}

// An elementwise row's value has the shape of each of its operands; a layout
// row carries indices through (its result is of its operands' kind).
TEST_P(OpRow, KindAgreesWithWhatTheSpecRecords) {
    const test::OpSpec* spec = test::find_op_spec(GetParam());
    ASSERT_NE(spec, nullptr);
    const detail::OpInfo& row = detail::op_info(GetParam());
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        test::Rng rng(seed);
        Tape<double> tape;
        const test::OpCase recorded = spec->record(tape, rng);
        const Node& node = tape.nodes()[recorded.output.index()];
        if (row.kind == detail::OpKind::Elementwise) {
            for (std::uint32_t operand : node.operands()) {
                EXPECT_EQ(tape.nodes()[operand].shape(), node.shape());
            }
        }
        EXPECT_EQ(row.carries_indices(), row.kind == detail::OpKind::Layout);
    }
}

TEST_P(OpRow, ShapeRuleRejectsABadCallNamingTheOperation) {
    const test::OpSpec* spec = test::find_op_spec(GetParam());
    ASSERT_NE(spec, nullptr);
    Tape<double> tape;
    try {
        spec->record_invalid(tape);
        FAIL() << "the bad call was recorded:\n" << tape.describe();
    } catch (const ShapeError& error) {
        EXPECT_THAT(error.what(), StartsWith(std::string(name_of(GetParam())) + " of node "));
        EXPECT_THAT(error.what(), HasSubstr(spec->advice));
        // Every node left on the tape is a parameter or an input that the spec
        // recorded before its bad call: the call appended nothing, not even a leaf.
        for (const Node& node : tape.nodes()) {
            EXPECT_TRUE(node.opcode() == Opcode::Parameter || node.opcode() == Opcode::Input)
                << node;
        }
    }
}

// The rule quotes the operand shapes: every operand's "node i [shape]" appears.
TEST_P(OpRow, ShapeRuleQuotesEveryOperandShape) {
    const test::OpSpec* spec = test::find_op_spec(GetParam());
    ASSERT_NE(spec, nullptr);
    Tape<double> tape;
    try {
        spec->record_invalid(tape);
        FAIL();
    } catch (const ShapeError& error) {
        for (const Node& node : tape.nodes()) {
            EXPECT_THAT(
                error.what(),
                HasSubstr("node " + std::to_string(node.index()) + " " + node.shape().str()));
        }
    }
}

// A computed opcode rejects attributes of another operation's kind, so no node
// can carry attributes its kernel never reads (and describe would print).
TEST_P(OpRow, ShapeRuleRejectsAttributesOfAnotherKind) {
    const Opcode opcode = GetParam();
    const test::OpSpec* spec = test::find_op_spec(opcode);
    ASSERT_NE(spec, nullptr);
    test::Rng rng(1);
    Tape<double> tape;
    const test::OpCase recorded = spec->record(tape, rng);
    const Node node = tape.nodes()[recorded.output.index()];
    // PadAttributes belong to Pad alone; Pad itself gets NarrowAttributes.
    const Attributes foreign = opcode == Opcode::Pad ? Attributes(NarrowAttributes{0, 0, 1})
                                                     : Attributes(PadAttributes{0, 1, 1});
    std::vector<Shape> shapes;
    for (std::uint32_t operand : node.operands()) {
        shapes.push_back(tape.nodes()[operand].shape());
    }
    bool rejected = false;
    try {
        (void)detail::infer_shape(opcode, node.operands(), shapes, foreign);
    } catch (const ShapeError&) {
        rejected = true;
    }
    EXPECT_TRUE(rejected) << name_of(opcode) << " accepted " << foreign;
}

std::string opcode_name(const ::testing::TestParamInfo<Opcode>& info) {
    return std::string(name_of(info.param));
}

INSTANTIATE_TEST_SUITE_P(EveryComputedOpcode,
                         OpRow,
                         ::testing::ValuesIn(test::computed_opcodes()),
                         opcode_name);

}  // namespace
}  // namespace topos
