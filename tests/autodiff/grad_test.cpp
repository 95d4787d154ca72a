// grad(target, wrt): the gradient Tape::differentiate records, as a value, so
// that it differentiates again: a Hessian-vector product against central
// differences of the engine's own gradient, and against the Hessian written
// out by hand for a quadratic.
#include "support/finite_differences.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace topos {
namespace {

TEST(Grad, IsTheGradientDifferentiateRecords) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>(Shape{3}, {0.5, -1.0, 2.0}));
    const auto loss = (w.tanh() * w).sum();
    const Symbol by_grad = grad(loss, w);
    const Symbol by_differentiate = tape.differentiate(loss, {w}).of(w);
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters());
    EXPECT_TRUE(run.of(by_grad).bit_equal(run.of(by_differentiate)));
    EXPECT_TRUE(run.of(by_grad).bit_equal(run.backward(loss.symbol()).of(w)));
}

TEST(Grad, TwiceGivesHessianVectorProductsOfAQuadraticExactly) {
    // f(w) = w^T A w / 2 with A symmetric: H v = A v.
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>(Shape{2, 1}, {0.3, -0.7}));
    const auto a = tape.leaf(Tensor<double>(Shape{2, 2}, {2.0, 0.5, 0.5, 3.0}));
    const auto v = tape.input(Tensor<double>(Shape{2, 1}, {1.0, -2.0}));
    const auto f = (w.transpose().matmul(a.matmul(w))).sum() * 0.5;
    const Symbol hv = grad((grad(f, w) * v).sum(), w);
    const Network<double> network = std::move(tape).into_network();
    EXPECT_EQ(network.forward(network.parameters()).of(hv),
              (Tensor<double>(Shape{2, 1}, {2.0 - 1.0, 0.5 - 6.0})));
}

TEST(Grad, TwiceAgreesWithDifferencesOfTheGradient) {
    const std::vector<double> point{0.5, -1.0, 2.0};
    const std::vector<double> direction{1.0, 0.0, -1.0};
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>(Shape{3}, point));
    const auto v = tape.input(Tensor<double>(Shape{3}, direction));
    const auto loss = (w.tanh() * w).sum() + (w * w).sum().log();
    const Symbol gradient = grad(loss, w);
    const Symbol hv = grad((tape.value(gradient) * v).sum(), w);
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = network.parameters();
    const Tensor<double> computed = network.forward(parameters).of(hv);
    // H v = d/dt gradient(w + t v) at t = 0.
    const std::vector<double> expected = test::central_difference([&](double t) {
        std::vector<double> moved(point);
        for (std::size_t i = 0; i < moved.size(); ++i) {
            moved[i] += t * direction[i];
        }
        const Tensor<double> g =
            network.forward(parameters.with(w, Tensor<double>(Shape{3}, moved))).of(gradient);
        return std::vector<double>(g.data().begin(), g.data().end());
    });
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_NEAR(computed.data()[i], expected[i], 1e-9) << i;
    }
}

TEST(Grad, RefusesATargetThatIsNotRankZero) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>(Shape{3}, {0.5, -1.0, 2.0}));
    EXPECT_THROW((void)grad(w.tanh(), w), GradientError);
}

}  // namespace
}  // namespace topos
