// Independent branches of a plan run at once (plan/concurrent_steps.hpp):
// consecutive steps that neither read nor overwrite each other's memory share
// one region of the pool, and every run keeps the interpreter's bits on any
// number of threads. This suite also runs under ThreadSanitizer, which reports
// two steps of a group touching the same memory.
#include "plan/concurrent_steps.hpp"

#include "support/random_graphs.hpp"
#include "support/thread_count_guard.hpp"
#include <topos/config.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::ThreadCountGuard;

template <Element T>
const std::vector<detail::StepGroup>& groups_of(const Plan<T>& plan) {
    return detail::PlanAccess::state(plan).concurrent;
}

// The entry's plan with its groups gathered at `min_work` instead of the
// default: 0 groups even the smallest independent steps.
template <Element T>
Plan<T> lowered_with_groups_from(const Entry<T>& entry, std::size_t min_work) {
    detail::PlanState<T> state = detail::lower_entry(entry);
    detail::group_concurrent_steps(state, min_work);
    return detail::PlanAccess::make(std::move(state));
}

Tensor<float> ramp(const Shape& shape, float scale) {
    std::vector<float> values(shape.elements());
    for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = scale * static_cast<float>(static_cast<int>(i % 97) - 48) / 48.0F;
    }
    return Tensor<float>(shape, values);
}

// Four products of one input, each below the size at which a product shares
// the pool itself, then their sum of squares.
struct FourProducts {
    Network<float> network;
    Symbol input;
    std::vector<Symbol> products;
    Symbol loss;
};

FourProducts four_products() {
    Tape<float> tape;
    auto x = tape.input(ramp(Shape{64, 48}, 1.0F));
    std::vector<Value<float>> products;
    for (int i = 0; i < 4; ++i) {
        auto w = tape.parameter(ramp(Shape{48, 32}, 0.25F * static_cast<float>(i + 1)));
        products.push_back(x.matmul(w));
    }
    auto total = (products[0] * products[1]) + (products[2] * products[3]);
    const Symbol loss = total.sum();
    std::vector<Symbol> symbols;
    for (const auto& product : products) {
        symbols.push_back(product.symbol());
    }
    return {std::move(tape).into_network(), x.symbol(), std::move(symbols), loss};
}

TEST(ConcurrentSteps, IndependentProductsRunAtOnceWithTheInterpretersBits) {
    const ThreadCountGuard guard;
    const FourProducts graph = four_products();
    const auto entry =
        graph.network.entry({graph.loss}).observe(graph.products).numerics(Numerics::Exact);
    const Plan<float> plan = entry.lower();
    ASSERT_EQ(groups_of(plan).size(), 1U);
    EXPECT_EQ(groups_of(plan)[0].count, 4U);
    const auto parameters = graph.network.parameters();
    const topos::Run<float> oracle = entry.interpret(parameters);
    for (std::size_t threads : {1, 2, 3}) {
        set_threads(threads);
        for (int repeat = 0; repeat < 20; ++repeat) {
            const topos::Run<float> run = plan.forward(parameters);
            for (const Symbol& value : entry.declared()) {
                ASSERT_TRUE(run.of(value).bit_equal(oracle.of(value)))
                    << threads << " threads, node " << value.index();
            }
        }
    }
}

// A backend with threads of its own (OpenBLAS, in a build with it) serves
// Fast products of 64^3 multiply-adds and more where it won their timed
// trial: those steps run alone.
TEST(ConcurrentSteps, StepsOfABackendWithItsOwnThreadsRunAlone) {
    Tape<float> tape;
    auto x = tape.input(ramp(Shape{64, 64}, 1.0F));
    std::vector<Value<float>> products;
    for (int i = 0; i < 4; ++i) {
        products.push_back(x.matmul(tape.parameter(ramp(Shape{64, 64}, 0.5F))));
    }
    const Symbol loss = ((products[0] * products[1]) + (products[2] * products[3])).sum().symbol();
    const auto network = std::move(tape).into_network();
    for (const Numerics numerics : {Numerics::Exact, Numerics::Fast}) {
        const Plan<float> plan = network.entry({loss}).numerics(numerics).lower();
        const auto& state = detail::PlanAccess::state(plan);
        if (state.executor != nullptr) {
            continue;  // a device runs the plan: no host steps run at once
        }
        std::size_t own_threads = 0;
        std::size_t grouped = 0;
        for (std::size_t s = 0; s < state.steps.size(); ++s) {
            const bool threaded =
                state.steps[s].server != nullptr && state.steps[s].server->runs_own_threads;
            own_threads += threaded ? 1 : 0;
            for (const detail::StepGroup& group : state.concurrent) {
                grouped += (s >= group.first && s < group.first + group.count) ? 1 : 0;
                EXPECT_FALSE(threaded && s >= group.first && s < group.first + group.count)
                    << "a step of " << state.steps[s].server->name << " runs beside others";
            }
        }
        // OpenBLAS serves the four products (one shape, one timed trial) or
        // none of them; where it does not, the four share a group. Where it
        // does (a trial on a busy machine may go either way), the loop above
        // checked that none of them is grouped; the products they feed may be.
        const bool blas_may_serve = TOPOS_HAS_BLAS == 1 && numerics == Numerics::Fast;
        EXPECT_TRUE(own_threads == 0 || (blas_may_serve && own_threads == 4)) << own_threads;
        if (own_threads == 0) {
            EXPECT_EQ(grouped, 4U);
        }
    }
}

TEST(ConcurrentSteps, SmallBranchesStayInOrderWhereWakingThePoolCostsMore) {
    Tape<float> tape;
    auto x = tape.input(ramp(Shape{4, 3}, 1.0F));
    auto w = tape.parameter(ramp(Shape{3, 2}, 0.5F));
    auto v = tape.parameter(ramp(Shape{3, 2}, 0.75F));
    const Symbol loss = (x.matmul(w) * x.matmul(v)).sum().symbol();
    const auto network = std::move(tape).into_network();
    const auto entry = network.entry({loss});
    EXPECT_TRUE(groups_of(entry.lower()).empty());
    EXPECT_EQ(groups_of(lowered_with_groups_from(entry, 0)).size(), 1U);
}

TEST(ConcurrentSteps, AChainOfDependentStepsFormsNoGroup) {
    Tape<float> tape;
    auto x = tape.input(ramp(Shape{64, 64}, 1.0F));
    auto w = tape.parameter(ramp(Shape{64, 64}, 0.125F));
    auto chain = x;
    for (int i = 0; i < 4; ++i) {
        chain = chain.matmul(w);
    }
    const Symbol loss = chain.sum().symbol();
    const auto network = std::move(tape).into_network();
    EXPECT_TRUE(groups_of(lowered_with_groups_from(network.entry({loss}), 0)).empty());
}

// The arena gives a value's buffer to a later value once its last reader has
// run: a step writing such a buffer must not run beside that reader.
TEST(ConcurrentSteps, AStepWritingABufferAnotherStepStillReadsWaitsForIt) {
    const ThreadCountGuard guard;
    Tape<float> tape;
    auto x = tape.input(ramp(Shape{32, 32}, 1.0F));
    auto w = tape.parameter(ramp(Shape{32, 32}, 0.25F));
    auto first = x.matmul(w);        // an arena value ...
    auto reader = first.matmul(w);   // ... whose last reader is this step,
    auto independent = x.matmul(x);  // and a step free to take its buffer
    const Symbol loss = (reader * independent).sum().symbol();
    const auto network = std::move(tape).into_network();
    const auto entry = network.entry({loss}).elect_patterns(false).numerics(Numerics::Exact);
    const Plan<float> plan = lowered_with_groups_from(entry, 0);
    const auto& state = detail::PlanAccess::state(plan);
    // Find the steps of `reader` and `independent`: when the arena placed the
    // independent product in `first`'s buffer, the two are never grouped.
    std::size_t reader_step = 0;
    std::size_t independent_step = 0;
    for (std::size_t s = 0; s < state.steps.size(); ++s) {
        const std::uint32_t node = state.steps[s].node->symbol().index();
        reader_step = node == reader.symbol().index() ? s : reader_step;
        independent_step = node == independent.symbol().index() ? s : independent_step;
    }
    const detail::Location& read = state.steps[reader_step].operands[0];
    const detail::Location& written = state.steps[independent_step].output;
    ASSERT_EQ(read.kind, detail::Location::Kind::Arena);
    ASSERT_EQ(written.kind, detail::Location::Kind::Arena);
    ASSERT_EQ(read.index, written.index) << "the arena no longer reuses the buffer; "
                                            "this test needs another graph";
    for (const detail::StepGroup& group : groups_of(plan)) {
        const bool holds_reader =
            reader_step >= group.first && reader_step < group.first + group.count;
        const bool holds_independent =
            independent_step >= group.first && independent_step < group.first + group.count;
        EXPECT_FALSE(holds_reader && holds_independent);
    }
    const auto parameters = network.parameters();
    const topos::Run<float> oracle = entry.interpret(parameters);
    set_threads(2);
    for (int repeat = 0; repeat < 50; ++repeat) {
        ASSERT_TRUE(plan.forward(parameters).of(loss).bit_equal(oracle.of(loss)));
    }
}

// The values a step reads: its node's operands, or its pattern's inputs.
template <Element T>
std::vector<std::uint32_t> reads_of(const detail::PlanState<T>& state,
                                    const detail::Step<T>& step) {
    if (step.election >= 0) {
        return state.elections[static_cast<std::size_t>(step.election)].match.inputs;
    }
    const auto operands = step.node->operands();
    return {operands.begin(), operands.end()};
}

// Whether, after the steps moved up into groups, every step still comes after
// the steps whose values it reads.
template <Element T>
bool every_step_follows_what_it_reads(const detail::PlanState<T>& state) {
    std::vector<bool> computed(state.graph_nodes().size(), false);
    std::vector<bool> computed_by_a_step(state.graph_nodes().size(), false);
    for (const detail::Step<T>& step : state.steps) {
        computed_by_a_step[step.node->symbol().index()] = true;
    }
    for (const detail::Step<T>& step : state.steps) {
        for (const std::uint32_t value : reads_of(state, step)) {
            if (computed_by_a_step[value] && !computed[value]) {
                return false;
            }
        }
        computed[step.node->symbol().index()] = true;
    }
    return true;
}

template <class T>
class ConcurrentStepsProperty : public ::testing::Test {};

using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ConcurrentStepsProperty, ElementTypes);

// Every independent run of steps grouped, however small: the random graphs'
// plans and their backward passes keep the interpreter's bits on 2 and 3
// threads, and the groups never hold a step that reads another's result.
TYPED_TEST(ConcurrentStepsProperty, RandomGraphsGroupedToTheLastStepKeepTheInterpretersBits) {
    using T = TypeParam;
    const ThreadCountGuard guard;
    std::size_t grouped_steps = 0;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        Tape<T> tape;
        const auto recorded = test::record_random_graph(tape, seed);
        const auto adjoints = tape.differentiate(recorded.loss, recorded.parameters);
        const auto network = std::move(tape).into_network();
        const auto parameters = test::random_parameters(network, seed);
        const std::vector<Symbol> inputs(recorded.inputs.begin(), recorded.inputs.end());
        const auto feeds = test::random_feeds(network, inputs, seed);
        for (const bool patterns : {true, false}) {
            const auto entry = network.entry(adjoints.roots())
                                   .observe(std::vector<Symbol>{recorded.loss})
                                   .elect_patterns(patterns)
                                   .numerics(Numerics::Exact);
            const Plan<T> plan = lowered_with_groups_from(entry, 0);
            const auto& state = detail::PlanAccess::state(plan);
            EXPECT_TRUE(every_step_follows_what_it_reads(state)) << "seed " << seed;
            for (const detail::StepGroup& group : state.concurrent) {
                grouped_steps += group.count;
                for (std::size_t a = group.first; a < group.first + group.count; ++a) {
                    for (std::size_t b = group.first; b < group.first + group.count; ++b) {
                        const auto operands = state.steps[b].node->operands();
                        EXPECT_EQ(std::count(operands.begin(),
                                             operands.end(),
                                             state.steps[a].node->symbol().index()),
                                  0)
                            << "seed " << seed << ": a group holds a step and its reader";
                    }
                }
            }
            const topos::Run<T> oracle = entry.interpret(parameters, feeds);
            for (std::size_t threads : {2, 3}) {
                set_threads(threads);
                const topos::Run<T> run = plan.forward(parameters, feeds);
                for (const Symbol& value : entry.declared()) {
                    EXPECT_TRUE(run.of(value).bit_equal(oracle.of(value)))
                        << "seed " << seed << ", " << threads << " threads, node " << value.index();
                }
            }
        }
    }
    EXPECT_GT(grouped_steps, 100U) << "the random graphs should give the groups work";
}

// Two lookups with indices outside their tables in one group: the run throws
// what the interpreter throws, the first failing step's error in schedule
// order, whichever thread failed first.
TEST(ConcurrentSteps, AFailingGroupReportsTheFirstFailureInScheduleOrder) {
    const ThreadCountGuard guard;
    Tape<float> tape;
    auto first_table = tape.parameter(ramp(Shape{4, 8}, 1.0F));
    auto second_table = tape.parameter(ramp(Shape{6, 8}, 1.0F));
    auto first_ids = tape.indices(Shape{3}, {0, 1, 2});
    auto second_ids = tape.indices(Shape{3}, {0, 1, 2});
    auto first = gather(first_table, first_ids);
    auto second = gather(second_table, second_ids);
    const Symbol loss = (first * second).sum().symbol();
    const auto network = std::move(tape).into_network();
    const auto entry = network.entry({loss}).elect_patterns(false).numerics(Numerics::Exact);
    const Plan<float> plan = lowered_with_groups_from(entry, 0);
    ASSERT_FALSE(groups_of(plan).empty());
    const auto parameters = network.parameters();
    const std::vector<Feed<float>> feeds{{first_ids.symbol(), Tensor<float>({3}, {0, 9, 1})},
                                         {second_ids.symbol(), Tensor<float>({3}, {7, 0, 1})}};
    std::string expected;
    try {
        (void)entry.interpret(parameters, feeds);
    } catch (const IndexError& error) {
        expected = error.what();
    }
    ASSERT_FALSE(expected.empty());
    for (std::size_t threads : {1, 2}) {
        set_threads(threads);
        for (int repeat = 0; repeat < 20; ++repeat) {
            try {
                (void)plan.forward(parameters, feeds);
                ADD_FAILURE() << "the run did not throw";
            } catch (const IndexError& error) {
                EXPECT_EQ(std::string(error.what()), expected) << threads << " threads";
            }
        }
    }
}

// A tally counts the steps of a group as it counts steps run one by one.
TEST(ConcurrentSteps, ATallyCountsGroupedStepsOnTheCallersThread) {
    const ThreadCountGuard guard;
    set_threads(2);
    const FourProducts graph = four_products();
    const Plan<float> plan = graph.network.entry({graph.loss}).lower();
    ASSERT_FALSE(groups_of(plan).empty());
    const auto parameters = graph.network.parameters();
    const Tally tally = Backend::tallied([&] { (void)plan.forward(parameters); });
    std::size_t products = 0;
    for (const Service& service : tally.services()) {
        products += service.formula == "MatMul" ? service.count : 0;
    }
    EXPECT_EQ(products, 4U) << tally;
}

}  // namespace
}  // namespace topos
