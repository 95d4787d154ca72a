// Properties of lowering over seeded random graphs: an Exact plan computes the
// interpreter's bits; liveness never frees a value before its last reader; the
// printed liveness and live_series() agree; the arena never overlaps two values
// alive at once.
#include "plan/arena.hpp"
#include "support/random_graphs.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace topos {
namespace {

template <class T>
class PlanProperty : public ::testing::Test {};

using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PlanProperty, ElementTypes);

// The loss plus every third value the generator chose.
template <Element T>
std::vector<Symbol> some_declared(const test::RandomGraph<T>& graph) {
    std::vector<Symbol> declared{graph.loss};
    for (std::size_t i = 0; i < graph.values.size(); i += 3) {
        declared.push_back(graph.values[i]);
    }
    return declared;
}

TYPED_TEST(PlanProperty, ExactPlansReturnTheInterpretersBits) {
    using T = TypeParam;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        const auto graph = test::random_graph<T>(seed);
        const auto parameters = test::random_parameters(graph.network, seed);
        const auto feeds = test::random_feeds(graph.network, graph.inputs, seed);
        const auto declared = some_declared(graph);
        const topos::Run<T> oracle = graph.network.forward(parameters, feeds);
        const Plan<T> plan = graph.network.entry({graph.loss})
                                 .observe(std::vector<Symbol>(declared.begin() + 1, declared.end()))
                                 .numerics(Numerics::Exact)
                                 .lower();
        const topos::Run<T> run = plan.forward(parameters, feeds);
        for (const Symbol& value : declared) {
            EXPECT_TRUE(run.of(value).bit_equal(oracle.of(value)))
                << "seed " << seed << ", node " << value.index();
        }
    }
}

TYPED_TEST(PlanProperty, CompiledTrainingMatchesTheReverseScanBitForBit) {
    using T = TypeParam;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        Tape<T> tape;
        const auto recorded = test::record_random_graph(tape, seed);
        const auto adjoints = tape.differentiate(recorded.loss, recorded.parameters);
        const Symbol loss = recorded.loss;
        const auto network = std::move(tape).into_network();
        const auto parameters = test::random_parameters(network, seed);
        std::vector<Symbol> inputs(recorded.inputs.begin(), recorded.inputs.end());
        const auto feeds = test::random_feeds(network, inputs, seed);
        const topos::Run<T> compiled = network.entry(adjoints.roots())
                                           .numerics(Numerics::Exact)
                                           .lower()
                                           .forward(parameters, feeds);
        const Field<T> scanned = network.forward(parameters, feeds).backward(loss);
        for (const auto& [parameter, gradient] : adjoints.gradients()) {
            EXPECT_TRUE(compiled.of(gradient).bit_equal(scanned.of(parameter)))
                << "seed " << seed << ", parameter node " << parameter.index();
        }
    }
}

TYPED_TEST(PlanProperty, NoValueIsFreedBeforeItsLastReader) {
    using T = TypeParam;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        const auto graph = test::random_graph<T>(seed);
        for (bool backward : {false, true}) {
            auto entry = graph.network.entry({graph.loss});
            const Plan<T> plan = (backward ? entry.backward() : entry).lower();
            const auto nodes = plan.nodes();
            const auto liveness = plan.liveness();
            for (std::size_t position = 0; position < nodes.size(); ++position) {
                const Liveness& word = liveness[position];
                if (word.kind != Liveness::Kind::Freed && word.kind != Liveness::Kind::Releasable) {
                    continue;
                }
                std::size_t last_reader = position;
                for (std::size_t later = position + 1; later < nodes.size(); ++later) {
                    for (std::uint32_t operand : nodes[later].operands()) {
                        if (operand == nodes[position].index()) {
                            last_reader = later;
                        }
                    }
                }
                EXPECT_EQ(word.after, nodes[last_reader].index())
                    << "seed " << seed << ", node " << nodes[position].index();
            }
            EXPECT_EQ(liveness.back().kind, Liveness::Kind::Kept);
        }
    }
}

// Recomputes the live series from describe()'s text alone.
std::vector<std::size_t> series_from_text(const std::string& text) {
    struct Line {
        std::size_t index;
        std::size_t elements;
        long long until_node;  // -1: to the end
    };

    std::vector<Line> lines;
    std::istringstream in(text);
    std::string row;
    while (std::getline(in, row) && row.rfind("plan:", 0) != 0) {
        Line line{};
        line.index = std::stoul(row.substr(0, 4));
        const std::size_t close = row.rfind(']');  // the shape is the last bracket
        const std::size_t open = row.rfind('[', close);
        std::string extents = row.substr(open + 1, close - open - 1);
        line.elements = 1;
        std::istringstream parts(extents);
        std::string part;
        while (std::getline(parts, part, ',')) {
            line.elements *= std::stoul(part);
        }
        const std::size_t after = row.find("after ");
        line.until_node = after == std::string::npos ? -1 : std::stoll(row.substr(after + 6));
        lines.push_back(line);
    }
    std::vector<std::size_t> series(lines.size(), 0);
    for (std::size_t position = 0; position < lines.size(); ++position) {
        std::size_t until = lines.size() - 1;
        if (lines[position].until_node >= 0) {
            for (std::size_t p = 0; p < lines.size(); ++p) {
                if (static_cast<long long>(lines[p].index) == lines[position].until_node) {
                    until = p;
                }
            }
        }
        for (std::size_t p = position; p <= until; ++p) {
            series[p] += lines[position].elements;
        }
    }
    return series;
}

TYPED_TEST(PlanProperty, DescribeAndLiveSeriesAgree) {
    using T = TypeParam;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        const auto graph = test::random_graph<T>(seed);
        const auto declared = some_declared(graph);
        for (bool backward : {false, true}) {
            auto entry = graph.network.entry(declared);
            const Plan<T> plan = (backward ? entry.backward() : entry).lower();
            EXPECT_EQ(series_from_text(plan.describe()), plan.live_series()) << "seed " << seed;
        }
    }
}

TEST(Arena, ValuesAliveAtOnceNeverShareMemory) {
    test::Rng rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<detail::BufferInterval> intervals;
        const std::size_t count = rng.between(1, 30);
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t first = rng.between(0, 40);
            intervals.push_back({first, first + rng.between(1, 10), rng.between(1, 100)});
        }
        const detail::ArenaAssignment arena = detail::assign_arena(intervals, 16);
        std::size_t no_reuse = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t size_i = (intervals[i].elements + 15) / 16 * 16;
            no_reuse += size_i;
            EXPECT_EQ(arena.offsets[i] % 16, 0u);
            EXPECT_LE(arena.offsets[i] + size_i, arena.elements);
            for (std::size_t j = i + 1; j < count; ++j) {
                const bool together = intervals[i].first <= intervals[j].last &&
                                      intervals[j].first <= intervals[i].last;
                const std::size_t size_j = (intervals[j].elements + 15) / 16 * 16;
                const bool overlap = arena.offsets[i] < arena.offsets[j] + size_j &&
                                     arena.offsets[j] < arena.offsets[i] + size_i;
                EXPECT_FALSE(together && overlap) << "trial " << trial;
            }
        }
        EXPECT_LE(arena.elements, no_reuse);
    }
}

}  // namespace
}  // namespace topos
