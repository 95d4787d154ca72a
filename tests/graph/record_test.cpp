// Recording on a tape: record-time shape errors that name the operation, the
// operand nodes and their shapes and say how to fix the call; nothing appended
// when a check fails; numpy broadcasting spelled out as explicit nodes; sealed
// tapes and mixed tapes refused; reopening; Tape::record's tuple.
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace topos {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The message of the ShapeError `record` throws; fails the test when it throws
// nothing or the tape changed.
template <class T, class Record>
std::string shape_error_of(const Tape<T>& tape, Record&& record) {
    const std::size_t before = tape.nodes().size();
    try {
        record();
    } catch (const ShapeError& error) {
        EXPECT_EQ(tape.nodes().size(), before) << "a failed record appended nodes";
        return error.what();
    }
    ADD_FAILURE() << "no ShapeError was thrown";
    return {};
}

std::vector<Opcode> opcodes_from(std::span<const Node> nodes, std::size_t first) {
    std::vector<Opcode> opcodes;
    for (std::size_t i = first; i < nodes.size(); ++i) {
        opcodes.push_back(nodes[i].opcode());
    }
    return opcodes;
}

TEST(Tape, AppendsOneCheckedNodePerExpression) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const auto x = tape.input(Tensor<double>::filled({3, 4}, 1.0));
    const auto y = w.matmul(x);
    ASSERT_EQ(tape.nodes().size(), 3u);
    const Node& node = tape.nodes()[2];
    EXPECT_EQ(node.opcode(), Opcode::MatMul);
    EXPECT_EQ(node.index(), 2u);
    EXPECT_EQ(node.symbol(), y.symbol());
    EXPECT_EQ(y.symbol().index(), 2u);
    EXPECT_EQ(node.shape(), (Shape{2, 4}));
    EXPECT_EQ(y.shape(), (Shape{2, 4}));
    EXPECT_EQ(std::vector<std::uint32_t>(node.operands().begin(), node.operands().end()),
              (std::vector<std::uint32_t>{0, 1}));
    EXPECT_TRUE(tape.nodes()[0].operands().empty());
    EXPECT_EQ(tape.nodes()[0].opcode(), Opcode::Parameter);
    EXPECT_EQ(tape.nodes()[1].opcode(), Opcode::Input);
}

TEST(Tape, RejectsMatmulWithMismatchedInnerDims) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const auto b = tape.input(Tensor<double>::filled({4, 5}, 1.0));
    const std::string message = shape_error_of(tape, [&] { a.matmul(b); });
    EXPECT_THAT(message,
                AllOf(HasSubstr("MatMul"),
                      HasSubstr("node 0 [2, 3]"),
                      HasSubstr("node 1 [4, 5]"),
                      HasSubstr("inner extents differ (3 vs 4)"),
                      HasSubstr("columns must equal")));
}

TEST(Tape, RejectsAMatmulOpcodeOfOperandsOfDifferentRanks) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3, 1}, 1.0));
    const auto b = tape.input(Tensor<double>::filled({3}, 1.0));
    EXPECT_THAT(shape_error_of(tape,
                               [&] {
                                   a.apply(Opcode::MatMul, {a, b});
                               }),
                AllOf(HasSubstr("MatMul"), HasSubstr("node 0 [2, 3, 1]"), HasSubstr("node 1 [3]")));
}

TEST(Tape, RejectsElementwiseOperandsThatDoNotBroadcast) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const auto b = tape.input(Tensor<double>::filled({3, 2}, 1.0));
    EXPECT_THAT(shape_error_of(tape, [&] { (void)(a + b); }),
                AllOf(HasSubstr("Add"),
                      HasSubstr("node 0 [2, 3]"),
                      HasSubstr("node 1 [3, 2]"),
                      HasSubstr("equal or 1")));
    EXPECT_THAT(shape_error_of(tape, [&] { (void)(b * a); }),
                AllOf(HasSubstr("Mul"), HasSubstr("node 1 [3, 2]"), HasSubstr("node 0 [2, 3]")));
    EXPECT_THAT(shape_error_of(tape, [&] { (void)a.maximum(b); }), HasSubstr("Maximum"));
}

TEST(Tape, AppendsNothingWhenABroadcastFailsOnALaterAxis) {
    // The trailing axes (3 vs 2) fail after the leading ones would have broadcast.
    Tape<float> tape;
    const auto a = tape.parameter(Tensor<float>::filled({4, 1, 3}, 1.0f));
    const auto b = tape.input(Tensor<float>::filled({5, 2}, 1.0f));
    EXPECT_THAT(shape_error_of(tape, [&] { (void)(a - b); }),
                AllOf(HasSubstr("Sub"), HasSubstr("node 0 [4, 1, 3]"), HasSubstr("node 1 [5, 2]")));
}

TEST(Tape, RejectsAReshapeThatChangesTheElementCount) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    EXPECT_THAT(shape_error_of(tape, [&] { a.reshape({4}); }),
                AllOf(HasSubstr("Reshape"),
                      HasSubstr("node 0 [2, 3]"),
                      HasSubstr("[4]"),
                      HasSubstr("keep the element count")));
}

TEST(Tape, RejectsAWindowLongerThanItsAxis) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    EXPECT_THAT(shape_error_of(tape, [&] { a.unfold(1, 2, 1, 3); }),
                AllOf(HasSubstr("Unfold"),
                      HasSubstr("node 0 [2, 3]"),
                      HasSubstr("pad the axis or use a smaller window")));
}

TEST(Tape, RejectsAnAxisOutOfRange) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    EXPECT_THAT(shape_error_of(tape, [&] { a.sum(2); }),
                AllOf(HasSubstr("Sum"),
                      HasSubstr("node 0 [2, 3]"),
                      HasSubstr("axis 2"),
                      HasSubstr("valid: 0 to 1")));
    EXPECT_THAT(shape_error_of(tape, [&] { a.narrow(5, 0, 1); }), HasSubstr("Narrow"));
    EXPECT_THAT(shape_error_of(tape, [&] { a.broadcast_along(3, 2); }),
                AllOf(HasSubstr("BroadcastAlong"), HasSubstr("valid: 0 to 2")));
}

TEST(Tape, RejectsABroadcastToAShapeItDoesNotBroadcastTo) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    EXPECT_THAT(shape_error_of(tape,
                               [&] {
                                   a.broadcast_to({4, 3});
                               }),
                AllOf(HasSubstr("[2, 3]"), HasSubstr("[4, 3]")));
    EXPECT_THAT(shape_error_of(tape, [&] { a.broadcast_to({3}); }), HasSubstr("[3]"));
}

TEST(Tape, RejectsAttributesOfAnotherOperationsKind) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    EXPECT_THAT(shape_error_of(tape, [&] { a.apply(Opcode::Reshape, {a}, AxisAttributes{0}); }),
                AllOf(HasSubstr("Reshape"), HasSubstr("not of this operation's kind")));
}

TEST(Tape, RejectsTheWrongNumberOfOperands) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    EXPECT_THAT(shape_error_of(tape, [&] { a.apply(Opcode::Add, {a}); }),
                AllOf(HasSubstr("Add"), HasSubstr("node 0 [2, 3]"), HasSubstr("2 operands")));
}

TEST(Tape, RejectsRecordingASourceAsAnOperation) {
    Tape<double> tape;
    const auto a = tape.parameter(1.0);
    EXPECT_THAT(shape_error_of(tape, [&] { a.apply(Opcode::Parameter, {a}); }),
                AllOf(HasSubstr("Parameter"), HasSubstr("tape.parameter")));
}

TEST(Tape, RecordsNumpyBroadcastingOfATrailingVectorAsOneBroadcastAlong) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>({2, 3}, {1, 2, 3, 4, 5, 6}));
    const auto b = tape.input(Tensor<double>({3}, {10, 20, 30}));
    const auto sum = a + b;
    EXPECT_EQ(opcodes_from(tape.nodes(), 2),
              (std::vector<Opcode>{Opcode::BroadcastAlong, Opcode::Add}));
    EXPECT_EQ(tape.nodes()[2].attributes_as<BroadcastAttributes>(), (BroadcastAttributes{0, 2}));
    EXPECT_EQ(tape.nodes()[2].operands()[0], 1u);
    EXPECT_EQ(sum.shape(), (Shape{2, 3}));
    const Symbol result = sum;
    const auto network = std::move(tape).into_network();
    EXPECT_EQ(network.forward(network.parameters()).of(result),
              (Tensor<double>({2, 3}, {11, 22, 33, 14, 25, 36})));
}

TEST(Tape, RecordsBroadcastingOfSizeOneAxesAsReshapeThenBroadcastAlong) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>({2, 1}, {1, 2}));
    const auto b = tape.input(Tensor<double>({3}, {10, 20, 30}));
    const auto sum = a + b;
    // a: [2, 1] -> Reshape [2] -> BroadcastAlong axis 1 extent 3; b: BroadcastAlong axis 0.
    EXPECT_EQ(opcodes_from(tape.nodes(), 2),
              (std::vector<Opcode>{
                  Opcode::Reshape, Opcode::BroadcastAlong, Opcode::BroadcastAlong, Opcode::Add}));
    EXPECT_EQ(tape.nodes()[2].attributes_as<ReshapeAttributes>().shape, (Shape{2}));
    EXPECT_EQ(tape.nodes()[3].attributes_as<BroadcastAttributes>(), (BroadcastAttributes{1, 3}));
    EXPECT_EQ(tape.nodes()[4].attributes_as<BroadcastAttributes>(), (BroadcastAttributes{0, 2}));
    const Symbol result = sum;
    const auto network = std::move(tape).into_network();
    EXPECT_EQ(network.forward(network.parameters()).of(result),
              (Tensor<double>({2, 3}, {11, 21, 31, 12, 22, 32})));
}

TEST(Tape, RecordsAPlainNumberAsARankZeroLeafBroadcastAlongEveryAxis) {
    Tape<float> tape;
    const auto a = tape.parameter(Tensor<float>({2, 2}, {1, 2, 3, 4}));
    const auto scaled = a * 2.0f;
    EXPECT_EQ(opcodes_from(tape.nodes(), 1),
              (std::vector<Opcode>{
                  Opcode::Leaf, Opcode::BroadcastAlong, Opcode::BroadcastAlong, Opcode::Mul}));
    EXPECT_EQ(tape.nodes()[1].shape(), Shape{});
    const Symbol result = scaled;
    const auto network = std::move(tape).into_network();
    EXPECT_EQ(network.forward(network.parameters()).of(result),
              (Tensor<float>({2, 2}, {2, 4, 6, 8})));
}

TEST(Tape, RecordsEqualShapesWithoutBroadcastNodes) {
    Tape<double> tape;
    const auto a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const auto b = tape.input(Tensor<double>::filled({2, 3}, 2.0));
    (void)(a / b);
    EXPECT_EQ(opcodes_from(tape.nodes(), 2), (std::vector<Opcode>{Opcode::Div}));
}

TEST(Tape, RefusesToRecordOnceSealed) {
    Tape<double> tape;
    const auto w = tape.parameter(1.0);
    const auto x = tape.input(2.0);
    const auto network = std::move(tape).into_network();
    EXPECT_THROW((void)(w * x), TapeError);
    EXPECT_THROW((void)w.exp(), TapeError);
    EXPECT_THROW(tape.parameter(1.0), TapeError);  // NOLINT(bugprone-use-after-move)
    EXPECT_THROW(tape.input(1.0), TapeError);
    EXPECT_THROW(tape.leaf(1.0), TapeError);
    EXPECT_THROW(tape.differentiate(w, {w}), TapeError);
    try {
        (void)(w + x);
        FAIL();
    } catch (const TapeError& error) {
        EXPECT_THAT(error.what(), HasSubstr("reopen"));
    }
    EXPECT_EQ(network.nodes().size(), 2u);
}

TEST(Tape, RefusesToSealTwice) {
    Tape<double> tape;
    (void)tape.parameter(1.0);
    const auto network = std::move(tape).into_network();
    EXPECT_THROW(std::move(tape).into_network(), TapeError);  // NOLINT(bugprone-use-after-move)
}

TEST(Tape, RefusesToMixValuesOfTwoTapes) {
    Tape<double> first;
    Tape<double> second;
    const auto a = first.parameter(Tensor<double>::filled({2, 2}, 1.0));
    const auto b = second.parameter(Tensor<double>::filled({2, 2}, 1.0));
    const auto c = second.parameter(Tensor<double>::filled({2}, 1.0));
    EXPECT_THROW((void)(a + b), TapeError);
    EXPECT_THROW((void)a.matmul(b), TapeError);
    EXPECT_THROW((void)(a * c), TapeError);  // shapes that would broadcast
    EXPECT_THROW((void)a.maximum(b), TapeError);
    EXPECT_THROW(first.differentiate(b.sum(), {a}), TapeError);
    EXPECT_EQ(first.nodes().size(), 1u);
    EXPECT_EQ(second.nodes().size(), 3u);  // b.sum() above was recorded on `second`
}

TEST(Tape, KeepsNodesAndSymbolsValidWhenReopened) {
    auto [network, w, x, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(3.0);
        const auto x = tape.input(2.0);
        return detach(w, x, w * x);
    });
    Tape<double> more = network.reopen();
    ASSERT_EQ(more.nodes().size(), network.nodes().size());
    for (std::size_t i = 0; i < network.nodes().size(); ++i) {
        EXPECT_EQ(more.nodes()[i].opcode(), network.nodes()[i].opcode());
        EXPECT_EQ(more.nodes()[i].shape(), network.nodes()[i].shape());
        EXPECT_EQ(more.nodes()[i].symbol(), network.nodes()[i].symbol());
    }
    const auto extra = more.input(10.0);
    const auto total = more.value(loss) + extra;
    const Symbol total_symbol = total;
    const Symbol extra_symbol = extra;
    const auto extended = std::move(more).into_network();

    // The old symbols name the same nodes in the extended network.
    EXPECT_EQ(extended.node(loss).opcode(), Opcode::Mul);
    const topos::Run<double> run = extended.forward(extended.parameters(), {{x, 5.0}});
    EXPECT_EQ(run.of(loss).scalar(), 15.0);
    EXPECT_EQ(run.of(total_symbol).scalar(), 25.0);
    EXPECT_EQ(run.backward(total_symbol).of(w).scalar(), 5.0);

    // The original network is unchanged and does not know the new nodes.
    EXPECT_EQ(network.nodes().size(), 3u);
    EXPECT_EQ(network.forward(network.parameters()).of(loss).scalar(), 6.0);
    EXPECT_THROW(network.node(total_symbol), SymbolError);
    EXPECT_THROW(network.node(extra_symbol), SymbolError);
    // Parameters of the original still fit the extension (same parameter nodes).
    EXPECT_EQ(extended.forward(network.parameters()).of(loss).scalar(), 6.0);
}

TEST(Tape, ReopensIntoIndependentTapes) {
    Tape<double> tape;
    (void)tape.parameter(1.0);
    const auto network = std::move(tape).into_network();
    Tape<double> first = network.reopen();
    Tape<double> second = network.reopen();
    (void)first.input(1.0);
    EXPECT_EQ(first.nodes().size(), 2u);
    EXPECT_EQ(second.nodes().size(), 1u);
    EXPECT_EQ(network.nodes().size(), 1u);
    const Symbol from_first = first.nodes()[1].symbol();
    const auto sealed_second = std::move(second).into_network();
    EXPECT_THROW(sealed_second.node(from_first), SymbolError);
}

TEST(Node, DepthOfAProductIsItsLeftOperandsLastExtentAndOfAnElementwiseNodeZero) {
    Tape<double> tape;
    const auto a = tape.input(Tensor<double>::filled({2, 5, 7}, 1.0));
    const auto b = tape.input(Tensor<double>::filled({2, 7, 3}, 1.0));
    const auto product = a.matmul(b);
    const auto squared = product.square();
    const std::span<const Node> nodes = tape.nodes();
    EXPECT_EQ(depth_of(nodes[product.index()], nodes), 7u);
    EXPECT_EQ(depth_of(nodes[squared.index()], nodes), 0u);
    EXPECT_EQ(depth_of(nodes[a.index()], nodes), 0u);
}

TEST(Tape, RecordReturnsATupleForStructuredBindings) {
    auto result = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(0.5);
        const auto x = tape.input(2.0);
        const auto y = tape.input(4.0);
        const auto error = w * x - y;
        return detach(w, x, y, error * error);
    });
    static_assert(std::tuple_size_v<decltype(result)> == 5);
    static_assert(std::is_same_v<std::tuple_element_t<0, decltype(result)>, Network<double>>);
    static_assert(std::is_same_v<std::tuple_element_t<4, decltype(result)>, Symbol>);
    auto& [network, w, x, y, loss] = result;
    EXPECT_EQ(network.nodes().size(), 6u);
    EXPECT_EQ(w.index(), 0u);
    EXPECT_EQ(x.index(), 1u);
    EXPECT_EQ(y.index(), 2u);
    EXPECT_EQ(loss.index(), 5u);
    EXPECT_EQ(network.forward(network.parameters()).of(loss).scalar(), 9.0);
}

TEST(Tape, SpellsSiluAndFloorAsTheirOpcodes) {
    Tape<double> tape;
    const auto x = tape.input(Tensor<double>({3}, {-1.5, 0.25, 2.0}));
    const auto swish = silu(x);
    const auto floored = x.floor();
    EXPECT_EQ(tape.nodes()[swish.index()].opcode(), Opcode::Silu);
    EXPECT_EQ(tape.nodes()[floored.index()].opcode(), Opcode::Floor);
    const auto network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters());
    EXPECT_EQ(run.of(floored), Tensor<double>({3}, {-2.0, 0.0, 2.0}));
    const auto values = run.of(swish).data();
    EXPECT_NEAR(values[0], -1.5 / (1 + std::exp(1.5)), 1e-15);
    EXPECT_NEAR(values[2], 2.0 / (1 + std::exp(-2.0)), 1e-15);
}

// A value's tape is another handle to the recording it belongs to.
TEST(Tape, GivesEachValueAHandleToItsOwnTape) {
    Tape<double> tape;
    const auto x = tape.input(1.0);
    Tape<double> same = x.tape();
    const auto y = same.leaf(2.0);
    EXPECT_NO_THROW((void)(x + y));
    EXPECT_EQ(tape.nodes().size(), 3u);  // the input, the leaf, the sum: one recording
    const auto network = std::move(same).into_network();
    EXPECT_THROW((void)tape.leaf(3.0), TapeError);
    EXPECT_EQ(network.nodes().size(), 3u);
}

TEST(Tape, GivesAValueForASymbolOfItsOwnNodes) {
    Tape<double> tape;
    const auto w = tape.parameter(3.0);
    const Symbol square = w * w;
    const auto again = tape.value(square);
    EXPECT_EQ(again.index(), square.index());
    EXPECT_EQ(again.shape(), Shape{});
    (void)(again + w);  // records on top of it
    EXPECT_EQ(tape.nodes().size(), 3u);
    Tape<double> other;
    (void)other.parameter(1.0);
    EXPECT_THROW((void)other.value(square), SymbolError);
}

TEST(Tape, RecordsIndicesAsAnIndexInput) {
    Tape<double> tape;
    const auto picks = tape.indices({2}, {1, 0});
    EXPECT_EQ(tape.nodes()[0].opcode(), Opcode::Input);
    EXPECT_EQ(tape.nodes()[0].dtype(), DType::Index);
    EXPECT_EQ(picks.one_hot(2).shape(), (Shape{2, 2}));
    EXPECT_EQ(tape.nodes()[1].dtype(), DType::Real);
    EXPECT_THROW((void)tape.indices(Tensor<double>({1}, {0.5})), Error);
}

TEST(Tape, RejectsRealsWhereAnOperationReadsIndices) {
    Tape<double> tape;
    const auto table = tape.parameter(Tensor<double>::filled({3, 2}, 1.0));
    const auto reals = tape.input(Tensor<double>({2}, {0, 1}));
    EXPECT_THAT(shape_error_of(tape, [&] { (void)gather(table, reals); }),
                AllOf(HasSubstr("Gather"), HasSubstr("node 1 [2]"), HasSubstr("tape.indices")));
}

TEST(Tape, RejectsIndicesWhereAnOperationComputesOnReals) {
    Tape<double> tape;
    const auto picks = tape.indices({2}, {1, 0});
    const auto x = tape.parameter(Tensor<double>::filled({2}, 1.0));
    EXPECT_THAT(shape_error_of(tape, [&] { (void)(picks * x); }),
                AllOf(HasSubstr("Mul"), HasSubstr("one_hot")));
    EXPECT_THAT(shape_error_of(tape, [&] { (void)picks.exp(); }), HasSubstr("Exp"));
}

TEST(Tape, DetachesValuesIntoSymbolsThatOutliveTheTape) {
    Symbol symbol;
    Network<float> network = [&] {
        Tape<float> tape;
        const auto x = tape.input(Tensor<float>({2}, {1.0f, 2.0f}));
        symbol = x.exp().symbol();
        return std::move(tape).into_network();
    }();
    EXPECT_EQ(symbol.index(), 1u);
    EXPECT_EQ(network.node(symbol).opcode(), Opcode::Exp);
}

}  // namespace
}  // namespace topos
