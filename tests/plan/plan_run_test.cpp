// Entries and plans at run time: what they evaluate, what they let a caller
// read, and that a plan's values are the interpreter's bits.
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;

// Two branches off one input: a root and a value nobody declares.
struct Branches {
    Network<double> network;
    Symbol input;
    Symbol scale;
    Symbol inner;
    Symbol root;
    Symbol other;
};

Branches branches() {
    Tape<double> tape;
    auto x = tape.input(Tensor<double>({3}, {0.5, -1.0, 2.0}));
    auto scale = tape.parameter(Tensor<double>({3}, {1.5, 2.0, -0.5}));
    auto inner = (x * scale).tanh();
    auto root = (inner * inner).sum();
    auto other = x.exp().sum();
    return Branches{std::move(tape).into_network(), x, scale, inner, root, other};
}

// The interpreter reports every node it evaluates to the active tally.
std::size_t evaluations(const Tally& tally) {
    std::size_t count = 0;
    for (const Service& service : tally.services()) {
        EXPECT_EQ(service.backend, "reference");
        count += service.count;
    }
    return count;
}

TEST(Entry, InterpretEvaluatesExactlyTheAncestorsOfTheDeclaredValues) {
    const Branches graph = branches();
    const Tally entry = Backend::tallied(
        [&] { graph.network.entry({graph.root}).interpret(graph.network.parameters(), {}); });
    // x * scale, tanh, inner * inner, sum: four computed ancestors; exp and its sum are skipped.
    EXPECT_EQ(evaluations(entry), 4u);
    EXPECT_EQ(entry.count("Tanh", "reference"), 1u);
    EXPECT_EQ(entry.count("Exp", "reference"), 0u);
    const Tally whole =
        Backend::tallied([&] { graph.network.forward(graph.network.parameters(), {}); });
    EXPECT_EQ(evaluations(whole), 6u);
}

TEST(Entry, ReadingAnUndeclaredValueThrowsReadError) {
    const Branches graph = branches();
    const topos::Run<double> run =
        graph.network.entry({graph.root}).interpret(graph.network.parameters(), {});
    EXPECT_NO_THROW(run.of(graph.root));
    EXPECT_THROW(run.of(graph.inner), ReadError);
    EXPECT_THROW(run.of(graph.other), ReadError);
}

TEST(Plan, ReadingAnUndeclaredValueThrowsEvenWhenItsBufferIsLive) {
    const Branches graph = branches();
    // The input is a source the plan holds for the whole run, yet undeclared.
    const topos::Run<double> run =
        graph.network.entry({graph.root}).lower().forward(graph.network.parameters(), {});
    try {
        run.of(graph.input);
        FAIL() << "expected ReadError";
    } catch (const ReadError& error) {
        EXPECT_THAT(error.what(), HasSubstr("observe"));
    }
}

TEST(Plan, ObservedValuesAreReadable) {
    const Branches graph = branches();
    const auto parameters = graph.network.parameters();
    const topos::Run<double> run = graph.network.entry({graph.root})
                                       .observe({graph.inner, graph.input})
                                       .lower()
                                       .forward(parameters, {});
    const topos::Run<double> oracle = graph.network.forward(parameters, {});
    EXPECT_TRUE(run.of(graph.inner).bit_equal(oracle.of(graph.inner)));
    EXPECT_TRUE(run.of(graph.input).bit_equal(oracle.of(graph.input)));
}

// What a StepObserver saw: for each call, the declared values it reported.
struct Observed {
    std::vector<std::vector<std::pair<Symbol, std::vector<double>>>> calls;

    StepObserver<double> observer() {
        return [this](std::span<const FinishedValue<double>> finished) {
            calls.emplace_back();
            for (const FinishedValue<double>& value : finished) {
                calls.back().emplace_back(
                    value.node, std::vector<double>(value.elements.begin(), value.elements.end()));
            }
        };
    }

    // The call that reported `node`, or calls.size() when none did.
    std::size_t call_of(Symbol node) const {
        for (std::size_t call = 0; call < calls.size(); ++call) {
            for (const auto& [reported, elements] : calls[call]) {
                if (reported == node) {
                    return call;
                }
            }
        }
        return calls.size();
    }
};

TEST(Plan, AStepObserverSeesEachDeclaredValueOnceWithItsBitsAsItsStepEnds) {
    const Branches graph = branches();
    const auto parameters = graph.network.parameters();
    const Plan<double> plan =
        graph.network.entry({graph.root}).observe({graph.inner, graph.input}).lower();
    Observed observed;
    const topos::Run<double> run = plan.forward(parameters, {}, observed.observer());
    // Before the first step, then once after each of the steps.
    EXPECT_GE(observed.calls.size(), 2u);
    std::size_t reports = 0;
    for (const auto& call : observed.calls) {
        for (const auto& [node, elements] : call) {
            ++reports;
            EXPECT_EQ(elements,
                      std::vector<double>(run.of(node).data().begin(), run.of(node).data().end()))
                << "node " << node.index();
        }
    }
    EXPECT_EQ(reports, 3u);
    EXPECT_EQ(observed.call_of(graph.input), 0u) << "an input is final before the first step";
    EXPECT_LT(observed.call_of(graph.inner), observed.call_of(graph.root));
    EXPECT_EQ(observed.call_of(graph.root), observed.calls.size() - 1);
    EXPECT_TRUE(run.of(graph.root).bit_equal(plan.forward(parameters, {}).of(graph.root)));
}

TEST(Plan, FeedsOverlayDefaultsAsInTheInterpreter) {
    const Branches graph = branches();
    const auto parameters = graph.network.parameters();
    const Tensor<double> fed({3}, {0.25, 0.75, -1.25});
    const topos::Run<double> planned =
        graph.network.entry({graph.root}).lower().forward(parameters, {{graph.input, fed}});
    const topos::Run<double> oracle = graph.network.forward(parameters, {{graph.input, fed}});
    EXPECT_TRUE(planned.of(graph.root).bit_equal(oracle.of(graph.root)));
    EXPECT_THROW(graph.network.entry({graph.root})
                     .lower()
                     .forward(parameters, {{graph.input, Tensor<double>(1.0)}}),
                 FeedError);
}

TEST(Plan, BackwardWithoutTheBackwardPostureNamesTheFix) {
    const Branches graph = branches();
    const topos::Run<double> run =
        graph.network.entry({graph.root}).lower().forward(graph.network.parameters(), {});
    try {
        run.backward(graph.root);
        FAIL() << "expected ReadError";
    } catch (const ReadError& error) {
        EXPECT_THAT(error.what(), HasSubstr(".backward()"));
    }
}

TEST(Plan, BackwardPostureRunsTheReverseScanWithTheInterpretersBits) {
    const Branches graph = branches();
    const auto parameters = graph.network.parameters();
    const topos::Run<double> run =
        graph.network.entry({graph.root}).backward().lower().forward(parameters, {});
    const Field<double> planned = run.backward(graph.root);
    const Field<double> oracle = graph.network.forward(parameters, {}).backward(graph.root);
    EXPECT_TRUE(planned.of(graph.scale).bit_equal(oracle.of(graph.scale)));
    EXPECT_TRUE(planned.of(graph.input).bit_equal(oracle.of(graph.input)));
}

TEST(Plan, SeveralEntriesOfOneNetworkShareItsParameters) {
    const Branches graph = branches();
    const auto parameters =
        graph.network.parameters().with(graph.scale, Tensor<double>({3}, {0.1, 0.2, 0.3}));
    const Plan<double> training = graph.network.entry({graph.root}).lower();
    const Plan<double> sampling = graph.network.entry({graph.inner}).lower();
    const topos::Run<double> oracle = graph.network.forward(parameters, {});
    EXPECT_TRUE(training.forward(parameters, {}).of(graph.root).bit_equal(oracle.of(graph.root)));
    EXPECT_TRUE(sampling.forward(parameters, {}).of(graph.inner).bit_equal(oracle.of(graph.inner)));
}

TEST(Plan, SurvivesAReopenOfItsNetwork) {
    const Branches graph = branches();
    const Plan<double> plan = graph.network.entry({graph.root}).lower();
    Tape<double> more = graph.network.reopen();
    const auto extended = std::move(more).into_network();
    const topos::Run<double> run = plan.forward(extended.parameters(), {});
    EXPECT_TRUE(
        run.of(graph.root)
            .bit_equal(graph.network.forward(graph.network.parameters(), {}).of(graph.root)));
}

TEST(Entry, RejectsAnEmptyRootListAndForeignSymbols) {
    const Branches graph = branches();
    const Branches other = branches();
    EXPECT_THROW(graph.network.entry(std::vector<Symbol>{}), EntryError);
    EXPECT_THROW(graph.network.entry({other.root}), SymbolError);
    EXPECT_THROW(graph.network.entry({graph.root}).observe({other.inner}), SymbolError);
}

// A reshape moves no element: when it is its operand's last reader it takes
// over the operand's arena buffer and no kernel runs for it. When the operand
// is read again later, the reshape needs a buffer of its own and runs.
TEST(Plan, AReshapeThatIsItsOperandsLastReaderTakesOverItsBuffer) {
    Tape<float> tape;
    const auto x = tape.input(init::normal(1, 1.0)(Shape{6, 8}));
    const auto grown = x.exp();
    const auto alone = grown.reshape(Shape{8, 6}).tanh().sum();
    // Here the Add reads `grown` after the first reshape (it needs that
    // reshape's result), so only the second reshape takes over its operand.
    const auto shared = (grown.reshape(Shape{8, 6}).tanh().reshape(Shape{6, 8}) + grown).sum();
    const auto network = std::move(tape).into_network();
    for (const auto& [root, reshapes_run] : {std::pair{alone, 0}, std::pair{shared, 1}}) {
        const auto plan = network.entry({root}).numerics(Numerics::Exact).lower();
        topos::Run<float> run = plan.forward(network.parameters());
        const Tally tally = Backend::tallied([&] { run = plan.forward(network.parameters()); });
        EXPECT_EQ(tally.count("Reshape", "reference"), static_cast<std::size_t>(reshapes_run));
        const auto oracle = network.forward(network.parameters(), {}).of(root);
        EXPECT_EQ(run.of(root).scalar(), oracle.scalar());
    }
}

// forward_into with the branches' root, inner value and input declared, over
// `fed`: the run it leaves must hold the interpreter's bits.
void expect_oracle_bits(const Branches& graph,
                        const topos::Run<double>& run,
                        const Tensor<double>& fed) {
    const topos::Run<double> oracle =
        graph.network.forward(graph.network.parameters(), {{graph.input, fed}});
    EXPECT_TRUE(run.of(graph.root).bit_equal(oracle.of(graph.root)));
    EXPECT_TRUE(run.of(graph.inner).bit_equal(oracle.of(graph.inner)));
    EXPECT_TRUE(run.of(graph.input).bit_equal(fed));
}

Plan<double> observing_plan(const Branches& graph) {
    return graph.network.entry({graph.root})
        .observe({graph.inner, graph.input})
        .numerics(Numerics::Exact)
        .lower();
}

TEST(Plan, ForwardIntoWritesTheComputedValuesIntoTheBuffersOfTheRunGivenUp) {
    const Branches graph = branches();
    const Plan<double> plan = observing_plan(graph);
    const auto parameters = graph.network.parameters();
    topos::Run<double> run = plan.forward(parameters, {});
    const double* root_buffer = run.of(graph.root).data().data();
    const double* inner_buffer = run.of(graph.inner).data().data();
    // The fed tensors stay alive here, so the only spare buffer of three
    // elements is `inner`'s own.
    std::vector<Tensor<double>> feeds;
    feeds.reserve(3);
    for (const double shift : {0.5, -2.0, 3.25}) {
        const Tensor<double>& fed = feeds.emplace_back(
            Shape{3}, std::initializer_list<double>{0.25 + shift, 0.75 * shift, -1.25});
        plan.forward_into(run, parameters, {{graph.input, fed}});
        expect_oracle_bits(graph, run, fed);
        EXPECT_EQ(run.of(graph.inner).data().data(), inner_buffer);
        EXPECT_EQ(run.of(graph.root).data().data(), root_buffer);
    }
}

TEST(Plan, ForwardIntoLeavesATensorTheCallerKeptUnchanged) {
    const Branches graph = branches();
    // Only `inner` is stored with three elements: its buffer is the one a
    // careless reuse would overwrite.
    const Plan<double> plan = graph.network.entry({graph.root}).observe({graph.inner}).lower();
    const auto parameters = graph.network.parameters();
    topos::Run<double> run = plan.forward(parameters, {});
    const Tensor<double> kept = run.of(graph.inner);
    const Tensor<double> kept_copy(kept.shape(), kept.data());
    const Tensor<double> fed({3}, {-3.0, 0.125, 1.5});
    plan.forward_into(run, parameters, {{graph.input, fed}});
    EXPECT_TRUE(kept.bit_equal(kept_copy));
    EXPECT_NE(run.of(graph.inner).data().data(), kept.data().data());
    const topos::Run<double> oracle = graph.network.forward(parameters, {{graph.input, fed}});
    EXPECT_TRUE(run.of(graph.inner).bit_equal(oracle.of(graph.inner)));
}

TEST(Plan, ForwardIntoLeavesTheRunUnchangedWhenAFeedIsRejected) {
    const Branches graph = branches();
    const Plan<double> plan = observing_plan(graph);
    const auto parameters = graph.network.parameters();
    const Tensor<double> fed({3}, {0.5, -1.0, 2.0});
    topos::Run<double> run = plan.forward(parameters, {{graph.input, fed}});
    EXPECT_THROW(plan.forward_into(run, parameters, {{graph.input, Tensor<double>(1.0)}}),
                 FeedError);
    EXPECT_THROW(plan.forward_into(run, branches().network.parameters(), {}), SymbolError);
    expect_oracle_bits(graph, run, fed);
}

TEST(Plan, ForwardIntoTakesAnyRunGivenUpAndLeavesOneOfThisPlan) {
    const Branches graph = branches();
    const Plan<double> plan = observing_plan(graph);
    const auto parameters = graph.network.parameters();
    const Tensor<double> fed({3}, {1.0, 2.0, -0.5});
    // An interpreter's run of the same network, and a backward-posture plan's
    // run: both give up their buffers; the result reads as this plan's run.
    std::vector<topos::Run<double>> given_up;
    given_up.push_back(graph.network.forward(parameters, {}));
    given_up.push_back(graph.network.entry({graph.other}).backward().lower().forward(parameters));
    for (topos::Run<double>& run : given_up) {
        plan.forward_into(run, parameters, {{graph.input, fed}});
        expect_oracle_bits(graph, run, fed);
        EXPECT_FALSE(run.readable(graph.other));
        EXPECT_THROW(run.backward(graph.root), ReadError);
    }
}

}  // namespace
}  // namespace topos
