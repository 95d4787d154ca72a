// Elections: what the catalog matches, what a plan elects, and what blocks an
// election. Matching is structural: a structure written by hand elects the
// same as the composition that records it.
#include "support/bit_equal.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;

std::vector<std::string> described(const Plan<double>& plan) {
    std::vector<std::string> lines;
    for (const Pattern& pattern : plan.patterns()) {
        lines.push_back(pattern.describe());
    }
    return lines;
}

std::size_t fused_count(const Plan<double>& plan) {
    return static_cast<std::size_t>(
        std::count_if(plan.liveness().begin(), plan.liveness().end(), [](const Liveness& l) {
            return l.kind == Liveness::Kind::Fused;
        }));
}

struct ConvPool {
    Network<double> network;
    Symbol windows_matrix;
    Symbol product;
    Symbol loss;
};

// The seeds' example, in double: conv 3x3 (2 filters), relu, 2x2 max pool, sum.
ConvPool seeds_example() {
    Tape<double> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(init::normal(2, 0.3)(Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{2}, 0.0));
    auto convolved = conv2d(image, filters, bias, 1, 0).relu();
    auto loss = max_pool(convolved, 2, 2).sum();
    const Symbol windows_matrix = tape.nodes()[6].symbol();
    const Symbol product = tape.nodes()[9].symbol();
    return {std::move(tape).into_network(), windows_matrix, product, loss};
}

TEST(Election, SeedsExampleElectsAWindowProductAndAReduceWindow) {
    const ConvPool net = seeds_example();
    const Plan<double> plan = net.network.entry({net.loss}).lower();
    EXPECT_EQ(described(plan),
              (std::vector<std::string>{
                  "WindowProduct rooted at node 9, covering 5 nodes, served as WindowProduct",
                  "ReduceWindow rooted at node 27, covering 12 nodes, served as ReduceWindow"}));
    EXPECT_EQ(fused_count(plan), 15u);
    EXPECT_NE(plan.describe().find("fused 2 groups, 15 nodes replaced\n"), std::string::npos);
    EXPECT_NE(plan.describe().find("live volume: peak 96 elements at node 11, retain-all 325"),
              std::string::npos);
}

TEST(Election, HandWrittenConvolutionElectsLikeTheComposition) {
    Tape<double> tape;
    auto image = tape.input(init::normal(3, 1.0)(Shape{2, 3, 7, 7}));
    auto filters = tape.parameter(init::normal(4, 0.3)(Shape{4, 3, 2, 2}));
    auto rows = image.unfold(2, 2, 2, 1);
    auto windows = rows.unfold(4, 2, 2, 1);  // [2, 3, 3, 2, 3, 2]
    auto ordered = windows.permute({0, 2, 4, 1, 3, 5});
    auto matrix = ordered.reshape(Shape{18, 12});
    auto taps = filters.permute({1, 2, 3, 0}).reshape(Shape{12, 4});
    auto loss = matrix.matmul(taps).tanh().sum();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({loss}).numerics(Numerics::Exact).lower();
    ASSERT_EQ(plan.patterns().size(), 1u);
    EXPECT_EQ(plan.patterns()[0].kind(), PatternKind::WindowProduct);
    EXPECT_EQ(plan.patterns()[0].nodes().size(), 5u);
    EXPECT_TRUE(bit_equal(plan.forward(network.parameters()).of(loss),
                          network.forward(network.parameters()).of(loss)));
}

TEST(Election, AWindowSumAlongTheTapAxisIsAReduceWindow) {
    Tape<double> tape;
    auto image = tape.input(init::normal(3, 1.0)(Shape{2, 3, 9, 8}));
    auto padded = image.pad(2, 1, 1).pad(3, 2, 0);
    auto windows = padded.unfold(2, 3, 2, 1).unfold(4, 2, 1, 2);  // [2, 3, 5, 3, 8, 2]
    auto taps = windows.permute({0, 1, 2, 4, 3, 5}).reshape(Shape{2, 3, 5, 8, 6});
    auto sums = taps.sum(4);
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({sums}).numerics(Numerics::Exact).lower();
    ASSERT_EQ(plan.patterns().size(), 1u);
    EXPECT_EQ(plan.patterns()[0].kind(), PatternKind::ReduceWindow);
    EXPECT_EQ(plan.patterns()[0].nodes().size(), 7u);
    EXPECT_TRUE(bit_equal(plan.forward(network.parameters()).of(sums),
                          network.forward(network.parameters()).of(sums)));
}

TEST(Election, AStructureThatDiffersIsNotMatched) {
    Tape<double> tape;
    auto image = tape.input(init::normal(3, 1.0)(Shape{1, 2, 5, 5}));
    auto filters = tape.parameter(init::normal(4, 0.3)(Shape{12, 3}));
    auto windows = image.unfold(2, 2, 1, 1).unfold(4, 3, 1, 1);  // [1, 2, 4, 2, 3, 3]
    // Permuted differently: channels last, so the matrix is not the windows matrix.
    auto ordered = windows.permute({0, 2, 4, 3, 5, 1});
    auto loss = ordered.reshape(Shape{12, 12}).matmul(filters).sum();
    const auto network = std::move(tape).into_network();
    EXPECT_TRUE(network.entry({loss}).lower().patterns().empty());
}

TEST(Election, ADeclaredInteriorValueBlocksTheElection) {
    const ConvPool net = seeds_example();
    const Plan<double> plan = net.network.entry({net.loss}).observe({net.windows_matrix}).lower();
    ASSERT_EQ(plan.patterns().size(), 1u);
    EXPECT_EQ(plan.patterns()[0].kind(), PatternKind::ReduceWindow);
    const topos::Run<double> run = plan.forward(net.network.parameters());
    const topos::Run<double> oracle = net.network.forward(net.network.parameters());
    EXPECT_TRUE(bit_equal(run.of(net.windows_matrix), oracle.of(net.windows_matrix)));
    EXPECT_TRUE(bit_equal(run.of(net.loss), oracle.of(net.loss)));
}

TEST(Election, ADeclaredRootKeepsTheElection) {
    const ConvPool net = seeds_example();
    const Plan<double> plan = net.network.entry({net.loss}).observe({net.product}).lower();
    EXPECT_EQ(plan.patterns().size(), 2u);
    EXPECT_TRUE(bit_equal(plan.forward(net.network.parameters()).of(net.product),
                          net.network.forward(net.network.parameters()).of(net.product)));
}

TEST(Election, AnInteriorValueReadOutsideBlocksTheElection) {
    Tape<double> tape;
    auto image = tape.input(init::normal(5, 1.0)(Shape{1, 1, 4, 4}));
    auto filters = tape.parameter(init::normal(6, 0.3)(Shape{1, 1, 2, 2}));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{1}, 0.5));
    auto convolved = conv2d(image, filters, bias);
    const Value<double> windows = tape.value(tape.nodes()[4].symbol());  // the permuted windows
    auto loss = convolved.sum() + windows.sum();
    const auto network = std::move(tape).into_network();
    EXPECT_TRUE(network.entry({loss}).lower().patterns().empty());
}

TEST(Election, BackwardPostureKeepsWhatTheScanReads) {
    const ConvPool net = seeds_example();
    const Plan<double> plan = net.network.entry({net.loss}).backward().lower();
    // MatMul's derivative reads the windows matrix and Maximum's reads the taps:
    // both are retained, so neither pattern can fuse them away.
    EXPECT_TRUE(plan.patterns().empty());
    const topos::Run<double> run = plan.forward(net.network.parameters());
    const topos::Run<double> oracle = net.network.forward(net.network.parameters());
    EXPECT_TRUE(bit_equal(run.backward(net.loss).of(net.network.parameters().symbols()[0]),
                          oracle.backward(net.loss).of(net.network.parameters().symbols()[0])));
}

TEST(Election, BatchNormStatisticsObservedAreWrittenBack) {
    Tape<double> tape;
    auto input = tape.input(init::normal(7, 2.0)(Shape{3, 4, 2, 3}));
    auto gamma = tape.parameter(init::normal(8, 1.0)(Shape{4}));
    auto beta = tape.parameter(init::normal(9, 1.0)(Shape{4}));
    const BatchNormTraining<double> normalised = batch_norm_training(input, gamma, beta);
    auto loss = normalised.output.sum();
    const auto network = std::move(tape).into_network();
    const auto observed =
        network.entry({loss}).observe({normalised.mean, normalised.variance}).lower();
    ASSERT_EQ(observed.patterns().size(), 1u);
    const Pattern& pattern = observed.patterns()[0];
    EXPECT_EQ(pattern.kind(), PatternKind::BatchNormTraining);
    EXPECT_EQ(pattern.results().size(), 3u);
    const topos::Run<double> run = observed.forward(network.parameters());
    const topos::Run<double> oracle = network.forward(network.parameters());
    for (const Symbol value :
         {loss.symbol(), normalised.mean.symbol(), normalised.variance.symbol()}) {
        EXPECT_TRUE(bit_equal(run.of(value), oracle.of(value)));
    }
    const auto unobserved = network.entry({loss}).lower();
    ASSERT_EQ(unobserved.patterns().size(), 1u);
    EXPECT_EQ(unobserved.patterns()[0].results().size(), 1u);
}

TEST(Election, BatchNormWithGivenStatisticsIsTheInferenceFormula) {
    Tape<double> tape;
    auto input = tape.input(init::normal(7, 2.0)(Shape{5, 3}));
    auto gamma = tape.parameter(init::normal(8, 1.0)(Shape{3}));
    auto beta = tape.parameter(init::normal(9, 1.0)(Shape{3}));
    auto mean = tape.input(init::normal(10, 1.0)(Shape{3}));
    auto variance = tape.input(init::uniform(11, 0.5, 2.0)(Shape{3}));
    auto output = batch_norm_inference(input, gamma, beta, mean, variance, 1e-3);
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({output}).lower();
    ASSERT_EQ(plan.patterns().size(), 1u);
    EXPECT_EQ(plan.patterns()[0].kind(), PatternKind::BatchNormInference);
    EXPECT_TRUE(bit_equal(plan.forward(network.parameters()).of(output),
                          network.forward(network.parameters()).of(output)));
}

TEST(Election, FusedNodesDoNotOccupyTheArena) {
    Tape<double> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{2, 3, 16, 16}));
    auto filters = tape.parameter(init::normal(2, 0.3)(Shape{4, 3, 3, 3}));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{4}, 0.0));
    auto loss = max_pool(conv2d(image, filters, bias, 1, 1).relu(), 2, 2).sum();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({loss}).lower();
    ASSERT_EQ(plan.patterns().size(), 2u);
    // The windows matrix alone is [512, 27]: 13,824 elements. The arena holds
    // only materialised intermediates, at most the peak live volume (which
    // counts fused nodes as zero) plus alignment padding per buffer.
    const std::size_t windows = 2 * 16 * 16 * 27;
    const std::size_t peak =
        *std::max_element(plan.live_series().begin(), plan.live_series().end());
    EXPECT_LT(plan.arena_elements(), windows);
    EXPECT_LE(plan.arena_elements(), peak + 8 * plan.nodes().size());
}

TEST(Election, ThePatternOfAFilterGradientIsAWindowProduct) {
    Tape<double> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{2, 2, 6, 6}));
    auto filters = tape.parameter(init::normal(2, 0.3)(Shape{3, 2, 3, 3}));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{3}, 0.1));
    auto loss = conv2d(image, filters, bias, 1, 1).tanh().sum();
    const auto adjoints = tape.differentiate(loss, {filters, bias});
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    ASSERT_EQ(plan.patterns().size(), 2u);
    EXPECT_EQ(plan.patterns()[0].kind(), PatternKind::WindowProduct);
    EXPECT_EQ(plan.patterns()[1].kind(), PatternKind::WindowProduct);
    const topos::Run<double> run = plan.forward(network.parameters());
    const topos::Run<double> oracle = network.forward(network.parameters());
    for (const Symbol root : adjoints.roots()) {
        EXPECT_TRUE(bit_equal(run.of(root), oracle.of(root)));
    }
}

TEST(Election, AnEntryCanLowerWithoutElections) {
    const ConvPool net = seeds_example();
    const Plan<double> plan = net.network.entry({net.loss}).elect_patterns(false).lower();
    EXPECT_TRUE(plan.patterns().empty());
    EXPECT_EQ(fused_count(plan), 0u);
    EXPECT_EQ(plan.describe().find("fused"), std::string::npos);
    EXPECT_TRUE(bit_equal(plan.forward(net.network.parameters()).of(net.loss),
                          net.network.forward(net.network.parameters()).of(net.loss)));
}

TEST(Composition, ConvolutionNamesAChannelMismatchAndAppendsNothing) {
    Tape<double> tape;
    auto image = tape.input(Tensor<double>::filled(Shape{1, 3, 5, 5}, 1.0));
    auto filters = tape.parameter(Tensor<double>::filled(Shape{2, 4, 3, 3}, 1.0));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{2}, 0.0));
    const std::size_t before = tape.nodes().size();
    try {
        conv2d(image, filters, bias);
        FAIL() << "a channel mismatch must throw";
    } catch (const ShapeError& error) {
        EXPECT_NE(std::string(error.what())
                      .find("take 4 input channels but the image [1, 3, 5, 5] has 3"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_EQ(tape.nodes().size(), before);
}

TEST(Composition, ConvolutionOutputShapeFollowsStridePaddingAndDilation) {
    Tape<double> tape;
    auto image = tape.input(Tensor<double>::filled(Shape{2, 3, 11, 9}, 1.0));
    auto filters = tape.parameter(Tensor<double>::filled(Shape{5, 3, 3, 2}, 1.0));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{5}, 0.0));
    // OH = (11 + 2*2 - 2*(3-1) - 1) / 2 + 1 = 6; OW = (9 + 4 - 2*(2-1) - 1) / 2 + 1 = 6
    EXPECT_EQ(conv2d(image, filters, bias, 2, 2, 2).shape(), (Shape{2, 5, 6, 6}));
    EXPECT_EQ(max_pool(image, 3, 2).shape(), (Shape{2, 3, 5, 4}));
}

TEST(Election, PatternsPrintTheirKindRootCoverAndFormula) {
    const ConvPool net = seeds_example();
    const Plan<double> plan = net.network.entry({net.loss}).lower();
    const Pattern& pattern = plan.patterns()[0];
    EXPECT_EQ(pattern.root().index(), 9u);
    EXPECT_EQ(pattern.formula(), Formula::WindowProduct);
    std::vector<std::uint32_t> covered;
    for (const Symbol node : pattern.nodes()) {
        covered.push_back(node.index());
    }
    EXPECT_EQ(covered, (std::vector<std::uint32_t>{3, 4, 5, 6, 9}));
}

// Windows a stride near SIZE_MAX apart: one window a row, whose taps a fused
// kernel must place as the unfused nodes do (a rounded-up division that
// wrapped around once put every tap in the padding).
TEST(Election, AConvolutionWithAStrideNearSizeMaxReadsItsOneWindowAsTheInterpreterDoes) {
    Tape<double> tape;
    auto image = tape.input(init::normal(3, 1.0)(Shape{2, 2, 2, 2}));
    auto filters = tape.input(init::normal(4, 1.0)(Shape{2, 2, 2, 2}));
    auto bias = tape.input(Tensor<double>::filled(Shape{2}, 0.5));
    const std::size_t stride = std::numeric_limits<std::size_t>::max();
    auto convolved = conv2d(image, filters, bias, stride, 5, 5);
    ASSERT_EQ(convolved.shape(), (Shape{2, 2, 1, 1}));
    const Network<double> network = std::move(tape).into_network();
    const Plan<double> plan = network.entry({convolved}).lower();
    ASSERT_EQ(plan.patterns().size(), 1U);
    const auto parameters = network.parameters();
    EXPECT_TRUE(bit_equal(plan.forward(parameters, {}).of(convolved),
                          network.forward(parameters, {}).of(convolved)));
}

}  // namespace
}  // namespace topos
