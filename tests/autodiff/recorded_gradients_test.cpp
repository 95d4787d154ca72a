// What Run::recorded_gradients projects onto parameter slots: the gradients a
// recorded reverse scan computed, read from the run, with zeros for the
// parameters not differentiated against, ready for Parameters::step.
#include "support/bit_equal.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace topos {
namespace {

using test::bit_equal;

// ---- Run::recorded_gradients ----

TEST(RecordedGradients, ProjectOntoParameterSlotsWithZerosForParametersNotDifferentiatedAgainst) {
    Tape<double> tape;
    const auto p0 = tape.parameter(Tensor<double>({2}, {1, 2}));
    const auto p1 = tape.parameter(3.0);  // read by the loss, not differentiated against
    const auto x = tape.input(Tensor<double>({2}, {5, 7}));
    const auto p2 = tape.parameter(Tensor<double>::filled({3}, 4.0));
    const auto p3 = tape.parameter(Tensor<double>::filled({2, 2}, 1.0));  // never read
    const auto loss = (p0 * x).sum() * p1 + (p2 * p2).sum();
    // Out of slot order, with an input (which has no slot) among them.
    const Adjoints<double> adjoints = tape.differentiate(loss, {p2, x, p0});
    const std::vector<Symbol> slots{p0, p1, p2, p3};
    const Symbol input = x;
    const auto network = std::move(tape).into_network();
    const Parameters<double> parameters = network.parameters();
    const topos::Run<double> run = network.forward(parameters);

    const Parameters<double> gradients = run.recorded_gradients(adjoints);

    ASSERT_EQ(gradients.size(), 4u);
    EXPECT_EQ(std::vector<Symbol>(gradients.symbols().begin(), gradients.symbols().end()), slots);
    EXPECT_EQ(gradients.of(slots[0]), (Tensor<double>({2}, {15, 21})));  // x p1
    EXPECT_TRUE(bit_equal(gradients.of(slots[1]), Tensor<double>(0.0)));
    EXPECT_EQ(gradients.of(slots[2]), Tensor<double>::filled({3}, 8.0));  // 2 p2
    EXPECT_TRUE(bit_equal(gradients.of(slots[3]), Tensor<double>::filled({2, 2}, 0.0)));
    EXPECT_TRUE(bit_equal(gradients.values()[0], run.of(adjoints.of(slots[0]))));
    EXPECT_TRUE(bit_equal(gradients.values()[2], run.of(adjoints.of(slots[2]))));
    EXPECT_THROW((void)gradients.of(input), SymbolError);  // inputs have no slot
    // Ready for a step: the same slots as the parameters.
    const Parameters<double> next = parameters.step(
        gradients, [](const Tensor<double>& p, const Tensor<double>& g) { return p - g; });
    EXPECT_EQ(next.of(slots[1]), Tensor<double>(3.0));
    EXPECT_EQ(next.of(slots[2]), Tensor<double>::filled({3}, -4.0));
}

TEST(RecordedGradients, AreTheValuesOfTheRunTheyAreReadFrom) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>({2}, {1, 2}));
    const auto x = tape.input(Tensor<double>({2}, {5, 7}));
    const Adjoints<double> adjoints = tape.differentiate((w * x).sum(), {w});
    const Symbol ws = w;
    const Symbol xs = x;
    const auto network = std::move(tape).into_network();
    const topos::Run<double> fed =
        network.forward(network.parameters(), {Feed<double>{xs, Tensor<double>({2}, {-1, 3})}});
    EXPECT_EQ(fed.recorded_gradients(adjoints).of(ws), (Tensor<double>({2}, {-1, 3})));
    EXPECT_EQ(network.forward(network.parameters()).recorded_gradients(adjoints).of(ws),
              (Tensor<double>({2}, {5, 7})));
}

}  // namespace
}  // namespace topos
