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

}  // namespace
}  // namespace topos
