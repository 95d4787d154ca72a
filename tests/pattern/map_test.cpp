// Map elections: regions of elementwise operations run as one blocked loop,
// with the unfused plan's bits, writing a following transpose or sums along
// the last axis themselves.
#include "support/bit_equal.hpp"
#include "support/random_graphs.hpp"
#include "support/thread_count_guard.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

namespace topos {
namespace {

using test::bit_equal;

struct Chain {
    Network<float> network;
    Symbol scaled;
    Symbol loss;
};

// tanh(x * w + b)^2 summed, on [48, 50]: 2,400 elements per elementwise value.
Chain elementwise_chain() {
    Tape<float> tape;
    auto x = tape.input(init::normal(1, 1.0)(Shape{48, 50}));
    auto w = tape.parameter(init::normal(2, 1.0)(Shape{48, 50}));
    auto b = tape.parameter(init::normal(3, 1.0)(Shape{48, 50}));
    auto scaled = x * w;
    auto activated = (scaled + b).tanh();
    auto loss = activated.square().sum();
    return {std::move(tape).into_network(), scaled, loss};
}

TEST(Map, AnElementwiseChainRunsAsOneLoop) {
    const Chain chain = elementwise_chain();
    const auto plan = chain.network.entry({chain.loss}).numerics(Numerics::Exact).lower();
    ASSERT_EQ(plan.patterns().size(), 1u);
    EXPECT_EQ(plan.patterns()[0].describe(),
              "Map rooted at node 6, covering 4 nodes, served as Map");
    EXPECT_NE(plan.describe().find("fused 1 group, 3 nodes replaced"), std::string::npos)
        << plan.describe();
    EXPECT_TRUE(bit_equal(plan.forward(chain.network.parameters()).of(chain.loss),
                          chain.network.forward(chain.network.parameters()).of(chain.loss)));
}

TEST(Map, AnObservedIntermediateStaysOutsideTheRegion) {
    const Chain chain = elementwise_chain();
    const auto plan = chain.network.entry({chain.loss}).observe({chain.scaled}).lower();
    ASSERT_EQ(plan.patterns().size(), 1u);
    EXPECT_EQ(plan.patterns()[0].nodes().size(), 3u);
    const auto run = plan.forward(chain.network.parameters());
    const auto oracle = chain.network.forward(chain.network.parameters());
    EXPECT_TRUE(bit_equal(run.of(chain.scaled), oracle.of(chain.scaled)));
    EXPECT_TRUE(bit_equal(run.of(chain.loss), oracle.of(chain.loss)));
}

// x - mean feeds both the square of one region and the product of another
// (layer normalisation's shape): it may join neither region, or the second
// would read a value the first never wrote.
TEST(Map, AValueReadByTwoRegionsStaysOutsideBoth) {
    Tape<float> tape;
    auto x = tape.input(init::normal(4, 1.0)(Shape{16, 64}));
    auto centred = x - x.mean(Axes{1}, true);
    auto scale = (centred.square().mean(Axes{1}, true) + 1e-5f).rsqrt();
    const Symbol y = centred * scale * tape.leaf(init::normal(5, 1.0)(Shape{16, 64}));
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({y}).numerics(Numerics::Exact).lower();
    EXPECT_TRUE(bit_equal(plan.forward(network.parameters()).of(y),
                          network.forward(network.parameters()).of(y)))
        << plan.describe();
}

// Steps of a plan's description that write a BroadcastAlong.
std::size_t broadcast_steps(const std::string& description) {
    std::size_t steps = 0;
    std::istringstream lines(description);
    for (std::string line; std::getline(lines, line);) {
        steps += line.find("BroadcastAlong") != std::string::npos &&
                 line.find("fused") == std::string::npos;
    }
    return steps;
}

// (x - spread(mean)) * spread(scale) + rows over `shape` [a, 5, b, c]: the two
// per-channel vectors repeat along axes 0, 2 and 3 (runs filled), the [a, c]
// rows along axes 1 and 2 (runs copied); blocks of the loop end inside runs.
// Where an image holds few elements, the channels' pattern repeats image by
// image and blocks read it from a tiling.
// The plan's steps that write a broadcast, and whether its bits are the
// interpreter's.
template <Element T>
std::size_t spread_chain_steps(const Shape& shape) {
    Tape<T> tape;
    auto x = tape.input(init::normal(6, 1.0)(shape));
    const auto spread = [&](const Value<T>& channels) {
        return channels.broadcast_along(0, shape[0])
            .broadcast_along(2, shape[2])
            .broadcast_along(3, shape[3]);
    };
    auto mean = tape.parameter(init::normal(7, 1.0)(Shape{shape[1]}));
    auto scale = tape.parameter(init::normal(8, 1.0)(Shape{shape[1]}));
    auto rows = tape.parameter(init::normal(9, 1.0)(Shape{shape[0], shape[3]}));
    const Symbol y = (x - spread(mean)) * spread(scale) +
                     rows.broadcast_along(1, shape[1]).broadcast_along(2, shape[2]);
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({y}).numerics(Numerics::Exact).lower();
    const auto oracle = network.forward(network.parameters());
    const test::ThreadCountGuard restore;
    for (const std::size_t threads : {1u, 2u}) {
        set_threads(threads);
        EXPECT_TRUE(bit_equal(plan.forward(network.parameters()).of(y), oracle.of(y)))
            << threads << " threads\n"
            << plan.describe();
    }
    EXPECT_EQ(plan.patterns().size(), 1u);
    return broadcast_steps(plan.describe());
}

TEST(Map, BroadcastChainsReadOnlyByALargeRegionJoinItWithTheSameBits) {
    EXPECT_EQ(spread_chain_steps<float>(Shape{6, 5, 28, 41}), 0u);
    EXPECT_EQ(spread_chain_steps<double>(Shape{7, 5, 31, 33}), 0u);
    // Short planes: each image's pattern of channels repeats image by image.
    EXPECT_EQ(spread_chain_steps<float>(Shape{50, 32, 8, 8}), 0u);
    EXPECT_EQ(spread_chain_steps<double>(Shape{130, 5, 7, 9}), 0u);
}

TEST(Map, BroadcastChainsOfASmallRegionStayStepsAndPrintAsBefore) {
    EXPECT_EQ(spread_chain_steps<float>(Shape{6, 5, 7, 9}), 8u);
    EXPECT_EQ(spread_chain_steps<double>(Shape{6, 5, 7, 9}), 8u);
}

// (x + spread(bias)) * x over [rows, width]: the bias row repeats along axis
// 0, a row shorter than the loop's block (read in place from a tiling of the
// row) or as long or longer (copied). Whether the plan's bits are the
// interpreter's on 1 and 2 threads (long regions are shared among threads,
// each task starting mid-row).
template <Element T>
bool repeated_row_keeps_the_bits(std::size_t rows, std::size_t width) {
    Tape<T> tape;
    auto x = tape.input(init::normal(12, 1.0)(Shape{rows, width}));
    auto bias = tape.parameter(init::normal(13, 1.0)(Shape{width}));
    const Symbol y = (x + bias.broadcast_along(0, rows)) * x;
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({y}).numerics(Numerics::Exact).lower();
    EXPECT_EQ(broadcast_steps(plan.describe()), 0u) << plan.describe();
    const auto oracle = network.forward(network.parameters());
    const test::ThreadCountGuard restore;
    bool same = true;
    for (const std::size_t threads : {1u, 2u}) {
        set_threads(threads);
        same = same && bit_equal(plan.forward(network.parameters()).of(y), oracle.of(y));
    }
    return same;
}

TEST(Map, ARowRepeatedAlongTheRegionKeepsTheBitsWhateverItsLength) {
    for (const std::size_t width : {1u, 7u, 8u, 24u, 500u, 511u, 512u, 513u, 1000u}) {
        EXPECT_TRUE(repeated_row_keeps_the_bits<float>(40'000 / width + 3, width))
            << "width " << width;
    }
    EXPECT_TRUE(repeated_row_keeps_the_bits<double>(4'099, 9));
}

struct TransposedRegion {
    Network<double> network;
    Symbol region_root;
    Symbol moved;
};

// relu(rows * scale + bias) for rows [images * pixels, channels], moved to
// channels-first images [images, channels, pixels] (what follows a
// convolution), or `rows` [images, channels, pixels] masked by a comparison
// and moved to [images, pixels, channels] (its gradient's way back).
TransposedRegion transposed_region(std::size_t images,
                                   std::size_t channels,
                                   std::size_t pixels,
                                   bool to_channels_first) {
    Tape<double> tape;
    if (to_channels_first) {
        auto rows = tape.input(init::normal(14, 1.0)(Shape{images * pixels, channels}));
        auto scale = tape.input(init::normal(15, 1.0)(Shape{images * pixels, channels}));
        auto bias = tape.parameter(init::normal(16, 1.0)(Shape{channels}));
        const auto activated = (rows * scale + bias.broadcast_along(0, images * pixels)).relu();
        const auto moved = activated.reshape(Shape{images, pixels, channels}).permute({0, 2, 1});
        return {std::move(tape).into_network(), activated, moved};
    }
    auto gradient = tape.input(init::normal(17, 1.0)(Shape{images, channels, pixels}));
    auto forward = tape.input(init::normal(18, 1.0)(Shape{images, channels, pixels}));
    const auto masked = gradient * forward.greater(gradient);
    const auto moved = masked.permute({0, 2, 1}).reshape(Shape{images * pixels, channels});
    return {std::move(tape).into_network(), masked, moved};
}

// Whether the region runs as one Map rooted at the movement, with the
// interpreter's bits on 1, 2 and 3 threads.
bool transposed_region_keeps_the_bits(std::size_t images,
                                      std::size_t channels,
                                      std::size_t pixels,
                                      bool to_channels_first) {
    const TransposedRegion r = transposed_region(images, channels, pixels, to_channels_first);
    const auto plan = r.network.entry({r.moved}).numerics(Numerics::Exact).lower();
    const bool one_map = plan.patterns().size() == 1 &&
                         plan.patterns()[0].kind() == PatternKind::Map &&
                         plan.patterns()[0].root() != r.region_root;
    EXPECT_TRUE(one_map) << plan.describe();
    const auto oracle = r.network.forward(r.network.parameters());
    const test::ThreadCountGuard restore;
    bool same = true;
    for (const std::size_t threads : {1u, 2u, 3u}) {
        set_threads(threads);
        same =
            same && bit_equal(plan.forward(r.network.parameters()).of(r.moved), oracle.of(r.moved));
    }
    return same && one_map;
}

TEST(Map, ARegionWritesAFollowingTransposeItselfWithTheSameBits) {
    // Matrices of 784 x 8 (W4's first layer), 196 x 16 (rows past whole
    // tiles), 5 x 1,000 (tasks of 16 rows spanning several images), 33 x 7.
    for (const bool to_channels_first : {true, false}) {
        EXPECT_TRUE(transposed_region_keeps_the_bits(32, 8, 784, to_channels_first));
        EXPECT_TRUE(transposed_region_keeps_the_bits(32, 16, 196, to_channels_first));
        EXPECT_TRUE(transposed_region_keeps_the_bits(9, 1000, 5, to_channels_first));
        EXPECT_TRUE(transposed_region_keeps_the_bits(150, 7, 33, to_channels_first));
    }
}

// The movement stays its own step where the region's result is read
// elsewhere too, is declared, or is moved otherwise than by a transpose.
TEST(Map, ARegionReadElsewhereOrMovedOtherwiseLeavesThePermuteAStep) {
    const TransposedRegion r = transposed_region(32, 8, 784, true);
    const auto declared = r.network.entry({r.moved, r.region_root}).lower();
    ASSERT_EQ(declared.patterns().size(), 1u);
    EXPECT_EQ(declared.patterns()[0].root(), r.region_root);

    Tape<float> tape;
    auto x = tape.input(init::normal(19, 1.0)(Shape{8, 16, 24, 24}));
    auto w = tape.input(init::normal(20, 1.0)(Shape{8, 16, 24, 24}));
    const auto swapped_middle = (x * w).exp().permute({0, 2, 1, 3});
    const auto sum = (x + w).tanh();
    const auto transposed_sum = sum.permute({0, 1, 3, 2});
    const Symbol read_twice = transposed_sum + sum;
    const auto network = std::move(tape).into_network();
    for (const auto& [declared, permute] :
         {std::pair<Symbol, Symbol>{swapped_middle, swapped_middle},
          std::pair<Symbol, Symbol>{read_twice, transposed_sum}}) {
        const auto plan = network.entry({declared}).numerics(Numerics::Exact).lower();
        for (const Pattern& pattern : plan.patterns()) {
            const auto nodes = pattern.nodes();
            EXPECT_EQ(std::find(nodes.begin(), nodes.end(), permute), nodes.end())
                << plan.describe();
        }
        EXPECT_TRUE(bit_equal(plan.forward(network.parameters()).of(declared),
                              network.forward(network.parameters()).of(declared)));
    }
}

// A spread read by two regions is copied by each from its small operand and
// written by neither: no step writes it.
TEST(Map, ABroadcastChainReadByTwoRegionsIsCopiedByBothAndNeverWritten) {
    Tape<float> tape;
    auto x = tape.input(init::normal(10, 1.0)(Shape{520, 64}));
    auto w = tape.parameter(init::normal(11, 1.0)(Shape{64}));
    const auto spread = w.broadcast_along(0, 520);
    const Symbol first = (x * spread).tanh();
    const Symbol second = (x + spread).exp();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({first, second}).numerics(Numerics::Exact).lower();
    EXPECT_EQ(broadcast_steps(plan.describe()), 0u) << plan.describe();
    EXPECT_EQ(plan.patterns().size(), 2u) << plan.describe();
    const auto run = plan.forward(network.parameters());
    const auto oracle = network.forward(network.parameters());
    EXPECT_TRUE(bit_equal(run.of(first), oracle.of(first)));
    EXPECT_TRUE(bit_equal(run.of(second), oracle.of(second)));
}

// A spread that something besides regions reads (here a Sum along its first
// axis) is written by a step for it; the regions still copy their own.
TEST(Map, ABroadcastChainReadOutsideTheRegionsStaysAStep) {
    Tape<float> tape;
    auto x = tape.input(init::normal(10, 1.0)(Shape{520, 64}));
    auto w = tape.parameter(init::normal(11, 1.0)(Shape{64}));
    const auto spread = w.broadcast_along(0, 520);
    const Symbol first = (x * spread).tanh();
    const Symbol summed = spread.sum(0);
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({first, summed}).numerics(Numerics::Exact).lower();
    EXPECT_EQ(broadcast_steps(plan.describe()), 1u) << plan.describe();
    const auto run = plan.forward(network.parameters());
    const auto oracle = network.forward(network.parameters());
    EXPECT_TRUE(bit_equal(run.of(first), oracle.of(first)));
    EXPECT_TRUE(bit_equal(run.of(summed), oracle.of(summed)));
}

TEST(Map, SmallValuesAreNotWorthALoop) {
    Tape<double> tape;
    auto w = tape.parameter(Tensor<double>(0.5));
    auto x = tape.input(Tensor<double>(2.0));
    auto y = tape.input(Tensor<double>(1.0));
    auto error = w * x - y;
    auto loss = error * error;
    const auto network = std::move(tape).into_network();
    EXPECT_TRUE(network.entry({loss}).lower().patterns().empty());
}

// sum((x - y)^2) along the last axis, or sum(-x), as a region of two
// members or one.
template <Element T>
struct SummedRegion {
    Network<T> network;
    Symbol sums;
};

template <Element T>
SummedRegion<T> summed_region(const Shape& shape, bool single_member) {
    Tape<T> tape;
    auto x = tape.input(init::normal(6, 1.0)(shape));
    auto y = tape.input(init::normal(7, 1.0)(shape));
    const std::size_t last = shape.rank() - 1;
    const auto sums = single_member ? (-x).sum(last) : (x - y).square().sum(last);
    return {std::move(tape).into_network(), sums.symbol()};
}

// Whether a Map pattern covers the Sum, and the plan gives the interpreter's
// bits on one thread and two.
template <Element T>
bool summed_region_keeps_the_bits(const Shape& shape, bool single_member) {
    const SummedRegion<T> r = summed_region<T>(shape, single_member);
    const auto plan = r.network.entry({r.sums}).numerics(Numerics::Exact).lower();
    const bool covered =
        std::any_of(plan.patterns().begin(), plan.patterns().end(), [&](const Pattern& pattern) {
            return pattern.kind() == PatternKind::Map && pattern.root() == r.sums;
        });
    EXPECT_TRUE(covered) << shape << '\n' << plan.describe();
    const test::ThreadCountGuard restore_threads;
    bool same = true;
    for (const std::size_t threads : {1, 2}) {
        set_threads(threads);
        same = same && bit_equal(plan.forward(r.network.parameters()).of(r.sums),
                                 r.network.forward(r.network.parameters()).of(r.sums));
    }
    return covered && same;
}

TEST(Map, ARegionReadOnlyByASumAlongItsLastAxisComputesTheSumsWithTheSameBits) {
    for (const bool single_member : {false, true}) {
        // Batch normalisation's rows, layer normalisation's, and rows longer
        // than a task's elements.
        for (const Shape& shape : {Shape{32, 64, 32}, Shape{4, 64, 768}, Shape{3, 12000}}) {
            EXPECT_TRUE(summed_region_keeps_the_bits<float>(shape, single_member)) << shape;
            EXPECT_TRUE(summed_region_keeps_the_bits<double>(shape, single_member)) << shape;
            EXPECT_TRUE(summed_region_keeps_the_bits<bf16>(shape, single_member)) << shape;
        }
    }
}

TEST(Map, ASumAlongAnotherAxisOrOfAValueReadTwiceStaysAStep) {
    Tape<float> tape;
    auto x = tape.input(init::normal(8, 1.0)(Shape{32, 64, 32}));
    const auto squared = x.square();
    const Symbol along_first = squared.sum(0).symbol();
    auto negated = -x;
    const Symbol summed = negated.sum(2).symbol();
    const Symbol also_read = (negated * x).symbol();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({along_first, summed, also_read}).lower();
    for (const Pattern& pattern : plan.patterns()) {
        for (const Symbol node : pattern.nodes()) {
            EXPECT_NE(node, along_first) << plan.describe();
            EXPECT_NE(node, summed) << plan.describe();
        }
    }
    const auto run = plan.forward(network.parameters());
    const auto oracle = network.forward(network.parameters());
    for (const Symbol value : {along_first, summed, also_read}) {
        EXPECT_TRUE(bit_equal(run.of(value), oracle.of(value)));
    }
}

template <Element T>
void check_random_graphs(std::size_t& elected) {
    test::RandomGraphOptions options;
    options.max_rank = 2;
    options.max_extent = 72;
    options.max_elements = 5000;
    options.operations = 30;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        Tape<T> tape;
        const auto recorded = test::record_random_graph(tape, seed, options);
        std::vector<Symbol> declared{recorded.loss};
        for (std::size_t i = 0; i < recorded.values.size(); i += 7) {
            declared.push_back(recorded.values[i]);
        }
        const auto network = std::move(tape).into_network();
        const auto plan = network.entry(declared).numerics(Numerics::Exact).lower();
        for (const Pattern& pattern : plan.patterns()) {
            elected += pattern.kind() == PatternKind::Map ? 1 : 0;
        }
        const auto run = plan.forward(network.parameters());
        const auto oracle = network.forward(network.parameters());
        for (const Symbol value : declared) {
            EXPECT_TRUE(bit_equal(run.of(value), oracle.of(value)))
                << "seed " << seed << ", node " << value.index() << '\n'
                << plan.describe();
        }
    }
}

TEST(Map, RandomGraphsKeepTheInterpretersBits) {
    std::size_t elected = 0;
    check_random_graphs<float>(elected);
    check_random_graphs<double>(elected);
    EXPECT_GT(elected, 10u) << "the random graphs should offer Map regions";
}

}  // namespace
}  // namespace topos
