// Tape::describe and Network::describe: the seeds' printed tables, character
// for character (the layout src/graph/describe.hpp gives), attributes as
// name=value, the summary line's counts and words, columns that widen for long
// cells, and operator<< of a Node.
#include <topos/graph/network.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/tape.hpp>
#include <topos/ops/opcode.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace topos {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

template <class T>
std::string printed(const T& value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

// The seeds' first tape: error = w x - y, loss = error^2.
Tape<double> first_tape() {
    Tape<double> tape;
    const auto w = tape.parameter(0.0);
    const auto x = tape.input(0.0);
    const auto y = tape.input(0.0);
    const auto error = w * x - y;
    (void)(error * error);
    return tape;
}

constexpr const char* first_tape_table =
    "   0  Parameter                         []\n"
    "   1  Input                             []\n"
    "   2  Input                             []\n"
    "   3  Mul            0, 1               []\n"
    "   4  Sub            3, 2               []\n"
    "   5  Mul            4, 4               []\n";

TEST(Describe, PrintsTheSeedsFirstTapeExactly) {
    EXPECT_EQ(first_tape().describe(),
              std::string(first_tape_table) + "tape: 6 nodes, 1 parameter, 2 inputs\n");
}

TEST(Describe, PrintsANetworkLikeItsTapeWithANetworkSummary) {
    const Network<double> network = first_tape().into_network();
    EXPECT_EQ(network.describe(),
              std::string(first_tape_table) + "network: 6 nodes, 1 parameter, 2 inputs\n");
}

// The seeds' convolution + max-pool graph (the conv example of the stack page):
// a 3x3 convolution written as unfold / permute / reshape / matmul, a bias, a
// relu, a 2x2 max pool written as unfold / narrow / maximum, and a sum.
Tape<float> conv_pool_tape() {
    Tape<float> tape;
    const auto image = tape.input(Tensor<float>::filled({1, 1, 6, 6}, 0.5f));
    const auto filters = tape.parameter(Tensor<float>::filled({2, 1, 3, 3}, 0.1f));
    const auto bias = tape.parameter(Tensor<float>::filled({2}, 0.0f));
    const auto patches =
        image.unfold(2, 3, 1).unfold(4, 3, 1).permute({0, 2, 4, 1, 3, 5}).reshape({16, 9});
    const auto weights = filters.permute({1, 2, 3, 0}).reshape({9, 2});
    const auto product = patches.matmul(weights);  // sequenced: MatMul is node 9
    const auto convolved = product + bias.broadcast_along(0, 16);
    const auto activated = convolved.reshape({1, 4, 4, 2}).permute({0, 3, 1, 2}).relu();
    const auto windows = activated.unfold(2, 2, 2)
                             .unfold(4, 2, 2)
                             .permute({0, 1, 2, 4, 3, 5})
                             .reshape({1, 2, 2, 2, 4});
    auto pooled = windows.narrow(4, 0, 1);
    for (std::size_t i = 1; i < 4; ++i) {
        pooled = pooled.maximum(windows.narrow(4, i, 1));
    }
    (void)pooled.reshape({1, 2, 2, 2}).sum();
    return tape;
}

TEST(Describe, PrintsAttributesAndWidensColumnsForLongCells) {
    // Opcode widens from 15 to 16 for "BroadcastAlong"; operands from 19 to 36
    // for "15 axis=2 size=2 step=2 dilation=1" (34 characters and the gap).
    const std::string expected =
        "   0  Input                                               [1, 1, 6, 6]\n"
        "   1  Parameter                                           [2, 1, 3, 3]\n"
        "   2  Parameter                                           [2]\n"
        "   3  Unfold          0 axis=2 size=3 step=1 dilation=1   [1, 1, 4, 3, 6]\n"
        "   4  Unfold          3 axis=4 size=3 step=1 dilation=1   [1, 1, 4, 3, 4, 3]\n"
        "   5  Permute         4 order=[0, 2, 4, 1, 3, 5]          [1, 4, 4, 1, 3, 3]\n"
        "   6  Reshape         5 shape=[16, 9]                     [16, 9]\n"
        "   7  Permute         1 order=[1, 2, 3, 0]                [1, 3, 3, 2]\n"
        "   8  Reshape         7 shape=[9, 2]                      [9, 2]\n"
        "   9  MatMul          6, 8                                [16, 2]\n"
        "  10  BroadcastAlong  2 axis=0 extent=16                  [16, 2]\n"
        "  11  Add             9, 10                               [16, 2]\n"
        "  12  Reshape         11 shape=[1, 4, 4, 2]               [1, 4, 4, 2]\n"
        "  13  Permute         12 order=[0, 3, 1, 2]               [1, 2, 4, 4]\n"
        "  14  Leaf                                                [1, 2, 4, 4]\n"
        "  15  Maximum         13, 14                              [1, 2, 4, 4]\n"
        "  16  Unfold          15 axis=2 size=2 step=2 dilation=1  [1, 2, 2, 2, 4]\n"
        "  17  Unfold          16 axis=4 size=2 step=2 dilation=1  [1, 2, 2, 2, 2, 2]\n"
        "  18  Permute         17 order=[0, 1, 2, 4, 3, 5]         [1, 2, 2, 2, 2, 2]\n"
        "  19  Reshape         18 shape=[1, 2, 2, 2, 4]            [1, 2, 2, 2, 4]\n"
        "  20  Narrow          19 axis=4 start=0 len=1             [1, 2, 2, 2, 1]\n"
        "  21  Narrow          19 axis=4 start=1 len=1             [1, 2, 2, 2, 1]\n"
        "  22  Maximum         20, 21                              [1, 2, 2, 2, 1]\n"
        "  23  Narrow          19 axis=4 start=2 len=1             [1, 2, 2, 2, 1]\n"
        "  24  Maximum         22, 23                              [1, 2, 2, 2, 1]\n"
        "  25  Narrow          19 axis=4 start=3 len=1             [1, 2, 2, 2, 1]\n"
        "  26  Maximum         24, 25                              [1, 2, 2, 2, 1]\n"
        "  27  Reshape         26 shape=[1, 2, 2, 2]               [1, 2, 2, 2]\n"
        "  28  Sum             27                                  []\n"
        "tape: 29 nodes, 2 parameters, 1 input, 1 leaf\n";
    EXPECT_EQ(conv_pool_tape().describe(), expected);
}

TEST(Describe, WidensAColumnOnlyAsFarAsItsLongestCell) {
    // "0 axis=1 start=0 len=1" is 22 characters: the operands column grows to 24.
    Tape<double> tape;
    const auto x = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    (void)x.narrow(1, 0, 1);
    EXPECT_EQ(tape.describe(),
              "   0  Parameter                              [2, 3]\n"
              "   1  Narrow         0 axis=1 start=0 len=1  [2, 1]\n"
              "tape: 2 nodes, 1 parameter, 0 inputs\n");
}

TEST(Describe, KeepsTheMinimumWidthForACellThatJustFits) {
    // "0 axis=1 extent=3" is 17 + 2 = 19: the operands column stays at 19, while
    // "BroadcastAlong" (14 + 2) widens the opcode column to 16.
    Tape<double> tape;
    const auto x = tape.parameter(Tensor<double>::filled({2}, 1.0));
    (void)x.broadcast_along(1, 3);
    EXPECT_EQ(tape.describe(),
              "   0  Parameter                          [2]\n"
              "   1  BroadcastAlong  0 axis=1 extent=3  [2, 3]\n"
              "tape: 2 nodes, 1 parameter, 0 inputs\n");
}

TEST(Describe, WidensTheIndexColumnPastFourDigits) {
    Tape<float> tape;
    for (int i = 0; i < 10001; ++i) {
        (void)tape.leaf(0.0f);
    }
    const std::string text = tape.describe();
    EXPECT_THAT(text, StartsWith("    0  Leaf                              []\n"));
    EXPECT_THAT(text, HasSubstr("\n10000  Leaf                              []\n"));
    EXPECT_THAT(text, HasSubstr("tape: 10001 nodes, 0 parameters, 0 inputs, 10001 leaves\n"));
}

TEST(Describe, CountsLeavesInTheSummaryOnlyWhenThereAreAny) {
    Tape<double> tape;
    const auto x = tape.input(1.0);
    (void)(x + 2.0);
    EXPECT_THAT(tape.describe(), HasSubstr("tape: 3 nodes, 0 parameters, 1 input, 1 leaf\n"));
    (void)(x * 3.0);
    EXPECT_THAT(tape.describe(), HasSubstr("tape: 5 nodes, 0 parameters, 1 input, 2 leaves\n"));
    EXPECT_THAT(first_tape().describe(), Not(HasSubstr("lea")));
}

TEST(Describe, UsesSingularAndPluralWords) {
    Tape<double> tape;
    (void)tape.parameter(1.0);
    EXPECT_EQ(tape.describe(),
              "   0  Parameter                         []\n"
              "tape: 1 node, 1 parameter, 0 inputs\n");
    EXPECT_EQ(Tape<double>().describe(), "tape: 0 nodes, 0 parameters, 0 inputs\n");
}

TEST(Describe, PrintsANodeAsItsDescribeLine) {
    const Tape<double> tape = first_tape();
    EXPECT_EQ(printed(tape.nodes()[3]), "   3  Mul            0, 1               []");
    EXPECT_EQ(printed(tape.nodes()[0]), "   0  Parameter                         []");
    const Tape<float> conv = conv_pool_tape();
    EXPECT_EQ(printed(conv.nodes()[5]),
              "   5  Permute        4 order=[0, 2, 4, 1, 3, 5]  [1, 4, 4, 1, 3, 3]");
}

TEST(Describe, PrintsEachAttributeKindAsNameValuePairs) {
    EXPECT_EQ(printed(Attributes(WindowAttributes{2, 3, 1, 1})), "axis=2 size=3 step=1 dilation=1");
    EXPECT_EQ(printed(Attributes(PermuteAttributes{Axes{0, 2, 4, 1, 3, 5}})),
              "order=[0, 2, 4, 1, 3, 5]");
    EXPECT_EQ(printed(Attributes(ReshapeAttributes{Shape{16, 9}})), "shape=[16, 9]");
    EXPECT_EQ(printed(Attributes(BroadcastAttributes{0, 16})), "axis=0 extent=16");
    EXPECT_EQ(printed(Attributes(NarrowAttributes{4, 0, 1})), "axis=4 start=0 len=1");
    EXPECT_EQ(printed(Attributes(AxisAttributes{1})), "axis=1");
    EXPECT_EQ(printed(Attributes(NoAttributes{})), "");
    const std::string fold = printed(Attributes(FoldAttributes{1, 3, 2, 1, 7}));
    EXPECT_THAT(fold, HasSubstr("axis=1"));
    EXPECT_THAT(fold, HasSubstr("size=3"));
    EXPECT_THAT(fold, HasSubstr("step=2"));
    EXPECT_THAT(fold, HasSubstr("dilation=1"));
    EXPECT_THAT(fold, HasSubstr("extent=7"));
    const std::string pad = printed(Attributes(PadAttributes{2, 1, 3}));
    EXPECT_THAT(pad, HasSubstr("axis=2"));
    EXPECT_THAT(pad, HasSubstr("before=1"));
    EXPECT_THAT(pad, HasSubstr("after=3"));
}

TEST(Describe, PrintsTheCatalogsAttributesAsNameValuePairs) {
    EXPECT_EQ(printed(Attributes(SliceAttributes{1, 2, 3, 2})), "axis=1 start=2 len=3 step=2");
    EXPECT_EQ(printed(Attributes(RowsAttributes{7})), "rows=7");
    EXPECT_THAT(printed(Attributes(CompareAttributes{Comparison::Less})), StartsWith("direction="));
    EXPECT_NE(printed(Attributes(CompareAttributes{Comparison::Less})),
              printed(Attributes(CompareAttributes{Comparison::Greater})));
    EXPECT_THAT(printed(Attributes(PadAttributes{0, 1, 2, 3})), HasSubstr("interior=3"));
}

TEST(Describe, PrintsSumAlongAnAxisWithItsAttribute) {
    Tape<double> tape;
    const auto x = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    (void)x.sum(1);
    (void)x.sum();
    EXPECT_EQ(tape.describe(),
              "   0  Parameter                         [2, 3]\n"
              "   1  Sum            0 axis=1           [2]\n"
              "   2  Sum            0                  []\n"
              "tape: 3 nodes, 1 parameter, 0 inputs\n");
}

TEST(Describe, NamesOpcodesByTheirEnumerators) {
    EXPECT_EQ(printed(Opcode::Parameter), "Parameter");
    EXPECT_EQ(printed(Opcode::Input), "Input");
    EXPECT_EQ(printed(Opcode::Leaf), "Leaf");
    EXPECT_EQ(printed(Opcode::Sub), "Sub");
    EXPECT_EQ(printed(Opcode::MatMul), "MatMul");
    EXPECT_EQ(printed(Opcode::BroadcastAlong), "BroadcastAlong");
    EXPECT_EQ(printed(Opcode::Unfold), "Unfold");
    EXPECT_EQ(printed(Opcode::Narrow), "Narrow");
    for (std::size_t i = 0; i < opcode_count; ++i) {
        const Opcode opcode = static_cast<Opcode>(i);
        EXPECT_EQ(printed(opcode), name_of(opcode));
        EXPECT_FALSE(name_of(opcode).empty()) << "opcode " << i;
    }
}

TEST(Describe, PrintsASymbolAsPercentIndex) {
    const Tape<double> tape = first_tape();
    EXPECT_EQ(printed(tape.nodes()[5].symbol()), "%5");
}

}  // namespace
}  // namespace topos
