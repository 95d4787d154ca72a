// Entry::simplify: lowering folds exact identities and merges identical nodes,
// and the plan still computes the interpreter's bits. Off by default, so the
// seeds' plan printouts never change.
#include "support/bit_equal.hpp"
#include "support/random_graphs.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace topos {
namespace {

// The scheduled nodes of `entry`'s plan.
std::size_t scheduled(const Entry<double>& entry) {
    return entry.lower().nodes().size();
}

// The interpreter's value of `value` and the simplified Exact plan's agree bit for bit.
::testing::AssertionResult simplified_plan_agrees(const Entry<double>& entry, Symbol value) {
    const auto exact = entry.numerics(Numerics::Exact);
    return test::bit_equal(exact.simplify().lower().forward().of(value),
                           exact.interpret(entry.network().parameters()).of(value));
}

struct Line {
    Tape<double> tape;
    Value<double> x = tape.input(Tensor<double>({2, 3}, {-0.0, 0.0, 1.5, -2.0, 3.25, -7.0}));

    Value<double> filled(double value) { return tape.leaf(Tensor<double>::filled({2, 3}, value)); }

    // A scalar constant broadcast to x's shape, as recorded derivatives spell a seed of 1.
    Value<double> broadcast(double value) {
        return tape.leaf(Tensor<double>({}, {value}))
            .reshape({1})
            .broadcast_along(0, 2)
            .reshape({2, 1})
            .broadcast_along(1, 3)
            .reshape({2, 3});
    }
};

TEST(Simplify, IsOffByDefaultAndDescribeSaysWhenItRan) {
    Line line;
    const auto y = line.x * line.filled(1.0);
    const auto network = std::move(line.tape).into_network();
    EXPECT_FALSE(network.entry({y}).simplifies());
    EXPECT_EQ(network.entry({y}).lower().describe().find("simplified"), std::string::npos);
    EXPECT_NE(network.entry({y}).simplify().lower().describe().find(
                  "simplified: 1 identity folded, 0 duplicates merged\n"),
              std::string::npos);
}

TEST(Simplify, FoldsMultiplyingAndDividingByOne) {
    for (int form = 0; form < 3; ++form) {
        Line line;
        const auto one = form == 2 ? line.broadcast(1.0) : line.filled(1.0);
        const auto y = form == 1 ? one * line.x : (form == 0 ? line.x * one : line.x / one);
        const auto z = y.tanh();
        const auto network = std::move(line.tape).into_network();
        EXPECT_EQ(scheduled(network.entry({z}).simplify()), 2u) << "form " << form;
        EXPECT_TRUE(simplified_plan_agrees(network.entry({z}), z));
    }
}

TEST(Simplify, FoldsAddingNegativeZeroAndSubtractingPositiveZero) {
    Line line;
    const auto plus = (line.x + line.filled(-0.0)).exp();
    const auto minus = (line.x - line.filled(0.0)).exp();
    const auto network = std::move(line.tape).into_network();
    EXPECT_EQ(scheduled(network.entry({plus}).simplify()), 2u);
    EXPECT_EQ(scheduled(network.entry({minus}).simplify()), 2u);
    EXPECT_TRUE(simplified_plan_agrees(network.entry({plus, minus}), plus));
    EXPECT_TRUE(simplified_plan_agrees(network.entry({plus, minus}), minus));
}

// -0 + 0 is +0, and x * 2 is not x: neither is an identity.
TEST(Simplify, KeepsWhatOnlyLooksLikeAnIdentity) {
    Line line;
    const auto plus_zero = line.x + line.filled(0.0);
    const auto minus_negative_zero = line.x - line.filled(-0.0);
    const auto twice = line.x * line.filled(2.0);
    const auto almost_one = line.x * line.filled(std::nextafter(1.0, 2.0));
    const auto network = std::move(line.tape).into_network();
    for (const Symbol value :
         {Symbol(plus_zero), Symbol(minus_negative_zero), Symbol(twice), Symbol(almost_one)}) {
        EXPECT_EQ(scheduled(network.entry({value}).simplify()), 3u);
        EXPECT_TRUE(simplified_plan_agrees(network.entry({value}), value));
    }
}

TEST(Simplify, FoldsAReshapeToTheSameShapeAndAPermuteUndone) {
    Line line;
    const auto same = line.x.reshape({2, 3}).sin();
    const auto undone = line.x.permute({1, 0}).permute({1, 0}).cos();
    const auto kept = line.x.permute({1, 0}).cos();
    const auto network = std::move(line.tape).into_network();
    EXPECT_EQ(scheduled(network.entry({same}).simplify()), 2u);
    EXPECT_EQ(scheduled(network.entry({undone}).simplify()), 2u);
    EXPECT_EQ(scheduled(network.entry({kept}).simplify()), 3u);
    EXPECT_TRUE(simplified_plan_agrees(network.entry({same, undone}), undone));
}

TEST(Simplify, MergesIdenticalNodesAndEqualConstants) {
    Line line;
    const auto a = line.x.tanh() * line.filled(0.5);
    const auto b = line.x.tanh() * line.filled(0.5);
    const auto sum = (a + b).sum();
    const auto network = std::move(line.tape).into_network();
    const Plan<double> plan = network.entry({sum}).simplify().lower();
    // x, tanh, 0.5, product, a + a, sum.
    EXPECT_EQ(plan.nodes().size(), 6u);
    EXPECT_NE(plan.describe().find("0 identities folded, 3 duplicates merged"), std::string::npos);
    EXPECT_TRUE(simplified_plan_agrees(network.entry({sum}), sum));
}

TEST(Simplify, NeverMergesTwoSourcesOfTheSameShape) {
    Tape<double> tape;
    const auto p = tape.parameter(Tensor<double>({2}, {1.0, 2.0}));
    const auto q = tape.parameter(Tensor<double>({2}, {1.0, 2.0}));
    const auto u = tape.input(Tensor<double>({2}, {3.0, 4.0}));
    const auto v = tape.input(Tensor<double>({2}, {3.0, 4.0}));
    const auto total = (p * u + q * v).sum();
    const auto network = std::move(tape).into_network();
    const Plan<double> plan = network.entry({total}).simplify().lower();
    EXPECT_EQ(plan.nodes().size(), network.entry({total}).lower().nodes().size());
    const auto other = Tensor<double>({2}, {-1.0, 0.5});
    const topos::Run<double> run = plan.forward(network.parameters(), {{v, other}});
    EXPECT_TRUE(test::bit_equal(run.of(total),
                                network.forward(network.parameters(), {{v, other}}).of(total)));
}

TEST(Simplify, AFoldedDeclaredValueReadsAsItsStandIn) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>({2}, {0.5, -1.0}));
    const auto y = w * tape.leaf(Tensor<double>({2}, {1.0, 1.0}));
    const auto z = y.exp();
    const auto network = std::move(tape).into_network();
    const topos::Run<double> run = network.entry({z}).observe({y}).simplify().lower().forward();
    EXPECT_TRUE(test::bit_equal(run.of(y), network.parameters().of(w)));
    EXPECT_TRUE(test::bit_equal(run.of(z), network.forward(network.parameters()).of(z)));
    EXPECT_THROW(run.of(w), ReadError);
}

TEST(Simplify, ShrinksTheHessianVectorProductAndItsModule) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>({3}, {0.5, -1.0, 2.0}));
    const auto v = tape.input(Tensor<double>({3}, {1.0, 0.0, -1.0}));
    const auto fit = (w.tanh() * w).sum();
    const auto loss = fit + (w * w).sum().log();
    const Symbol hv = grad((grad(loss, w) * v).sum(), w);
    const auto network = std::move(tape).into_network();
    const auto entry = network.entry({hv}).numerics(Numerics::Exact);
    const Plan<double> plain = entry.lower();
    const Plan<double> simplified = entry.simplify().lower();
    EXPECT_LT(simplified.nodes().size() + 15, plain.nodes().size());
    EXPECT_LT(simplified.emit_stablehlo().size(), plain.emit_stablehlo().size());
    EXPECT_TRUE(test::bit_equal(simplified.forward().of(hv), plain.forward().of(hv)));
    EXPECT_TRUE(simplified_plan_agrees(network.entry({hv}), hv));
}

template <class T>
class SimplifyProperty : public ::testing::Test {};

using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SimplifyProperty, ElementTypes);

TYPED_TEST(SimplifyProperty, SimplifiedTrainingPlansReturnTheInterpretersBits) {
    using T = TypeParam;
    std::size_t removed = 0;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        Tape<T> tape;
        const auto recorded = test::record_random_graph(tape, seed);
        const auto adjoints = tape.differentiate(recorded.loss, recorded.parameters);
        const auto network = std::move(tape).into_network();
        const auto parameters = test::random_parameters(network, seed);
        std::vector<Symbol> inputs(recorded.inputs.begin(), recorded.inputs.end());
        const auto feeds = test::random_feeds(network, inputs, seed);
        const auto entry = network.entry(adjoints.roots())
                               .observe({Symbol(recorded.loss)})
                               .numerics(Numerics::Exact);
        const Plan<T> plan = entry.simplify().lower();
        removed += entry.lower().nodes().size() - plan.nodes().size();
        const topos::Run<T> run = plan.forward(parameters, feeds);
        const topos::Run<T> oracle = entry.interpret(parameters, feeds);
        for (const Symbol& value : entry.declared()) {
            EXPECT_TRUE(test::bit_equal(run.of(value), oracle.of(value)))
                << "seed " << seed << ", node " << value.index();
        }
    }
    EXPECT_GT(removed, 25u);
}

TYPED_TEST(SimplifyProperty, TheBackwardPostureStillScansTheSameBits) {
    using T = TypeParam;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        Tape<T> tape;
        const auto recorded = test::record_random_graph(tape, seed);
        // Noise a recorded derivative would carry: a product with one and a
        // value computed twice.
        const auto noisy =
            (recorded.loss * tape.leaf(Tensor<T>({}, {T{1}}))).exp() + recorded.loss.exp();
        const auto network = std::move(tape).into_network();
        const auto parameters = test::random_parameters(network, seed);
        std::vector<Symbol> inputs(recorded.inputs.begin(), recorded.inputs.end());
        const auto feeds = test::random_feeds(network, inputs, seed);
        const Field<T> scanned = network.forward(parameters, feeds).backward(noisy);
        const Field<T> compiled = network.entry({noisy})
                                      .numerics(Numerics::Exact)
                                      .backward()
                                      .simplify()
                                      .lower()
                                      .forward(parameters, feeds)
                                      .backward(noisy);
        for (const auto& parameter : recorded.parameters) {
            EXPECT_TRUE(test::bit_equal(compiled.of(parameter), scanned.of(parameter)))
                << "seed " << seed << ", parameter node " << parameter.index();
        }
    }
}

}  // namespace
}  // namespace topos
