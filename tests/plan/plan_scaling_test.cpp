// Lowering scales: a million-node chain lowers with `.backward()` well inside
// a bound that quadratic liveness, live volume, election or arena assignment
// would blow by minutes; and the near-linear algorithms give exactly what the
// straightforward quadratic definitions give, on random graphs in every
// posture and on random buffer intervals.
#include "plan/arena.hpp"
#include "support/random_graphs.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace topos {
namespace {

// Unoptimised and sanitized builds run the same work several times slower.
constexpr double build_slowdown() {
#if !defined(__OPTIMIZE__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 6.0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
    return 6.0;
#else
    return 1.0;
#endif
#else
    return 1.0;
#endif
}

struct Chain {
    Network<double> network;
    Symbol loss;
};

// `nodes` computed nodes: (y * w).tanh() repeated, so w has a reader at every
// other position and every value is read once more by the next.
Chain product_tanh_chain(std::size_t nodes) {
    Tape<double> tape;
    auto w = tape.parameter(Tensor<double>(Shape{4}, std::vector<double>{0.5, -0.25, 0.75, 1.0}));
    auto y = tape.input(Tensor<double>(Shape{4}, std::vector<double>{0.1, 0.2, 0.3, 0.4}));
    for (std::size_t i = 0; i < nodes / 2; ++i) {
        y = (y * w).tanh();
    }
    const Symbol loss = y.sum();
    return {std::move(tape).into_network(), loss};
}

TEST(PlanScaling, LowersAMillionNodeChainWithBackwardInLinearTime) {
    constexpr std::size_t nodes = 1'000'000;
    const Chain chain = product_tanh_chain(nodes);
    const auto entry = chain.network.entry({chain.loss}).backward();
    const auto start = std::chrono::steady_clock::now();
    const Plan<double> plan = entry.lower();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    // Near-linear lowering takes about a second in a Release build on a shared
    // 2-core machine; the quadratic one took 6 s at 200,000 nodes, so about
    // 150 s here.
    EXPECT_LT(took.count(), 60.0 * build_slowdown());
    ASSERT_EQ(plan.nodes().size(), nodes + 3);  // w, the input, the chain and the sum
    EXPECT_EQ(plan.live_series().size(), nodes + 3);
}

// The live series by its definition: each materialised value counts its
// elements at every position from its own through the one its liveness names.
std::vector<std::size_t> quadratic_live_series(const Plan<double>& plan) {
    const auto nodes = plan.nodes();
    const auto liveness = plan.liveness();
    std::vector<std::size_t> series(nodes.size(), 0);
    for (std::size_t position = 0; position < nodes.size(); ++position) {
        if (liveness[position].kind == Liveness::Kind::Fused) {
            continue;
        }
        std::size_t until = std::max(position, nodes.size() - 1);
        if (liveness[position].kind == Liveness::Kind::Freed ||
            liveness[position].kind == Liveness::Kind::Releasable) {
            for (std::size_t p = 0; p < nodes.size(); ++p) {
                if (nodes[p].index() == liveness[position].after) {
                    until = p;
                }
            }
        }
        for (std::size_t p = position; p <= until; ++p) {
            series[p] += nodes[position].shape().elements();
        }
    }
    return series;
}

// The loss, every third value the generator chose and, when `recorded`, the
// gradients recorded into the same tape.
std::vector<Plan<double>> plans_in_every_posture(std::uint64_t seed) {
    test::RandomGraphOptions options;
    options.operations = 60;
    Tape<double> tape;
    const auto graph = test::record_random_graph(tape, seed, options);
    const auto adjoints = tape.differentiate(graph.loss, graph.parameters);
    const Symbol loss = graph.loss;
    std::vector<Symbol> observed;
    for (std::size_t i = 0; i < graph.values.size(); i += 3) {
        observed.push_back(graph.values[i]);
    }
    const auto network = std::move(tape).into_network();
    const auto roots_only = network.entry({loss});
    const auto observing = roots_only.observe(observed);
    const auto training = network.entry(adjoints.roots());
    return {roots_only.lower(),
            roots_only.backward().lower(),
            observing.lower(),
            observing.backward().lower(),
            observing.elect_patterns(false).lower(),
            training.lower(),
            training.backward().lower(),
            training.elect_patterns(false).lower()};
}

TEST(PlanScaling, LiveSeriesEqualsTheQuadraticDefinitionInEveryPosture) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        for (const Plan<double>& plan : plans_in_every_posture(seed)) {
            EXPECT_EQ(plan.live_series(), quadratic_live_series(plan)) << "seed " << seed;
        }
    }
}

std::size_t round_up(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// First fit by its definition: scan every live buffer in offset order.
detail::ArenaAssignment quadratic_first_fit(const std::vector<detail::BufferInterval>& intervals,
                                            std::size_t alignment) {
    struct Placed {
        std::size_t offset;
        std::size_t end;
        std::size_t last;
    };

    std::vector<std::size_t> order(intervals.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::ranges::stable_sort(order, {}, [&](std::size_t i) { return intervals[i].first; });
    detail::ArenaAssignment assignment;
    assignment.offsets.resize(intervals.size());
    std::vector<Placed> live;  // by offset
    for (std::size_t i : order) {
        std::erase_if(live, [&](const Placed& placed) { return placed.last < intervals[i].first; });
        const std::size_t size =
            round_up(std::max<std::size_t>(intervals[i].elements, 1), alignment);
        std::size_t offset = 0;
        auto slot = live.begin();
        for (; slot != live.end() && slot->offset < offset + size; ++slot) {
            offset = std::max(offset, slot->end);
        }
        live.insert(slot, Placed{offset, offset + size, intervals[i].last});
        assignment.offsets[i] = offset;
        assignment.elements = std::max(assignment.elements, offset + size);
    }
    return assignment;
}

TEST(PlanScaling, ArenaOffsetsEqualTheQuadraticFirstFit) {
    test::Rng rng(11);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<detail::BufferInterval> intervals;
        const std::size_t count = rng.between(1, 400);
        const std::size_t span = rng.between(1, 200);
        const std::size_t longest = rng.between(0, 300);
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t first = rng.between(0, span);
            intervals.push_back({first, first + rng.between(0, longest), rng.between(0, 200)});
        }
        const std::size_t alignment = rng.chance(0.5) ? 1 : 8;
        const auto fast = detail::assign_arena(intervals, alignment);
        const auto reference = quadratic_first_fit(intervals, alignment);
        EXPECT_EQ(fast.offsets, reference.offsets) << "trial " << trial;
        EXPECT_EQ(fast.elements, reference.elements) << "trial " << trial;
    }
}

}  // namespace
}  // namespace topos
