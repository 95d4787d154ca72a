// The seeds' printed plans are the specification: these are golden tests.
#include <topos/topos.hpp>

#include <gtest/gtest.h>

namespace topos {
namespace {

struct Walkthrough {
    Network<float> network;
    Symbol weights;
    Symbol hidden;
    Symbol loss;
};

Walkthrough walkthrough() {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    return Walkthrough{std::move(tape).into_network(), weights, hidden, loss};
}

TEST(PlanDescribe, PrintsTheGettingStartedPlan) {
    auto [network, loss] = Tape<double>::record([](Tape<double>& tape) {
        auto w = tape.parameter(0.0);
        auto x = tape.input(0.0);
        auto y = tape.input(0.0);
        auto error = w * x - y;
        return detach(error * error);
    });
    EXPECT_EQ(network.entry({loss}).lower().describe(),
              "   0  Parameter                         []           freed after 3\n"
              "   1  Input                             []           freed after 3\n"
              "   2  Input                             []           freed after 4\n"
              "   3  Mul            0, 1               []           freed after 4\n"
              "   4  Sub            3, 2               []           freed after 5\n"
              "   5  Mul            4, 4               []           kept\n"
              "plan: forward; 6 of 6 nodes evaluated, 1 readable\n"
              "live volume: peak 4 elements at node 3, retain-all 6\n");
}

TEST(PlanDescribe, PrintsTheWalkthroughWithRootsOnly) {
    const Walkthrough graph = walkthrough();
    EXPECT_EQ(graph.network.entry({graph.loss}).lower().describe(),
              "   0  Parameter                         [2, 2]       freed after 2\n"
              "   1  Input                             [1, 2]       freed after 2\n"
              "   2  MatMul         1, 0               [1, 2]       freed after 3\n"
              "   3  Tanh           2                  [1, 2]       freed after 4\n"
              "   4  Mul            3, 3               [1, 2]       freed after 5\n"
              "   5  Sum            4                  []           kept\n"
              "plan: forward; 6 of 6 nodes evaluated, 1 readable\n"
              "live volume: peak 8 elements at node 2, retain-all 13\n");
}

TEST(PlanDescribe, ObservingHiddenTurnsOneLineFromFreedToKept) {
    const Walkthrough graph = walkthrough();
    EXPECT_EQ(graph.network.entry({graph.loss}).observe({graph.hidden}).lower().describe(),
              "   0  Parameter                         [2, 2]       freed after 2\n"
              "   1  Input                             [1, 2]       freed after 2\n"
              "   2  MatMul         1, 0               [1, 2]       freed after 3\n"
              "   3  Tanh           2                  [1, 2]       kept\n"
              "   4  Mul            3, 3               [1, 2]       freed after 5\n"
              "   5  Sum            4                  []           kept\n"
              "plan: forward; 6 of 6 nodes evaluated, 2 readable\n"
              "live volume: peak 8 elements at node 2, retain-all 13\n");
}

TEST(PlanDescribe, PrintsTheBackwardPostureAndItsGradient) {
    const Walkthrough graph = walkthrough();
    // Exact: the gradient's digits are the interpreter's in every build.
    const Plan<float> plan =
        graph.network.entry({graph.loss}).numerics(Numerics::Exact).backward().lower();
    EXPECT_EQ(plan.describe(),
              "   0  Parameter                         [2, 2]       retained\n"
              "   1  Input                             [1, 2]       retained\n"
              "   2  MatMul         1, 0               [1, 2]       releasable after 3\n"
              "   3  Tanh           2                  [1, 2]       retained\n"
              "   4  Mul            3, 3               [1, 2]       releasable after 5\n"
              "   5  Sum            4                  []           kept\n"
              "plan: retain; 6 of 6 nodes evaluated, 1 readable\n"
              "live volume: retain-all 13, release floor 11 at node 5\n");
    const topos::Run<float> run = plan.forward(graph.network.parameters(), {});
    EXPECT_EQ(run.backward(graph.loss).of(graph.weights).str(),
              "[[0.6397, 0.75025934], [1.2794, 1.5005187]]");
}

TEST(PlanDescribe, RecordedGradientsLeaveUndeclaredNodesUnscheduled) {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const auto adjoints = tape.differentiate(loss, {weights});
    const auto network = std::move(tape).into_network();
    const Plan<float> plan = network.entry(adjoints.roots()).lower();
    EXPECT_LT(plan.nodes().size(), network.nodes().size());
    const std::string expected = std::to_string(plan.nodes().size()) + " of " +
                                 std::to_string(network.nodes().size()) + " nodes evaluated";
    EXPECT_NE(plan.describe().find(expected), std::string::npos) << plan.describe();
}

}  // namespace
}  // namespace topos
