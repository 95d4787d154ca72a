// Optimizers, schedules and clipping. Each optimizer is checked against values
// derived by hand and, over several steps with weight decay, against the update
// rules as torch.optim's documentation writes them (the "Algorithm" boxes of
// SGD, Adam and AdamW), written out here independently in long double.
#include "support/bit_equal.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/clip.hpp>
#include <topos/model/init.hpp>
#include <topos/model/optim.hpp>
#include <topos/model/schedule.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace topos {
namespace {

// A network of two parameters, [3] and [2, 2], to step.
Network<double> two_parameters() {
    Tape<double> tape;
    const Value<double> a = tape.parameter(init::normal(1, 1.0)(Shape{3}));
    const Value<double> b = tape.parameter(init::normal(2, 1.0)(Shape{2, 2}));
    (void)(a.sum() + b.sum());
    return std::move(tape).into_network();
}

// Parameters-shaped values (gradients, say) drawn from a seed.
Parameters<double> drawn(const Parameters<double>& like, std::uint64_t seed) {
    std::vector<Tensor<double>> values;
    for (const Tensor<double>& value : like.values()) {
        values.push_back(init::normal(seed++, 1.0)(value.shape()));
    }
    return like.with_values(values);
}

Parameters<double> scalar_parameter(double value) {
    Tape<double> tape;
    (void)tape.parameter(value);
    return std::move(tape).into_network().parameters();
}

Parameters<double> like_with(const Parameters<double>& like, double value) {
    return like.with_values({Tensor<double>(value)});
}

// The parameters as one flat list of long doubles, slot after slot.
std::vector<long double> flat(const Parameters<double>& parameters) {
    std::vector<long double> out;
    for (const Tensor<double>& value : parameters.values()) {
        out.insert(out.end(), value.data().begin(), value.data().end());
    }
    return out;
}

void expect_close(const Parameters<double>& actual,
                  const std::vector<long double>& expected,
                  long double tolerance) {
    const std::vector<long double> values = flat(actual);
    ASSERT_EQ(values.size(), expected.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_NEAR(static_cast<double>(values[i]),
                    static_cast<double>(expected[i]),
                    static_cast<double>(tolerance * std::max(1.0L, std::fabs(expected[i]))))
            << "element " << i;
    }
}

TEST(Sgd, MomentumByHand) {
    const optim::Sgd sgd({.learning_rate = 0.1, .momentum = 0.9});
    const Parameters<double> p = scalar_parameter(1.0);
    auto state = sgd.start(p);
    // b1 = 0.5, p1 = 1 - 0.1 * 0.5; b2 = 0.9 * 0.5 + 0.25 = 0.7, p2 = 0.95 - 0.07.
    const auto [p1, s1] = sgd.step(p, like_with(p, 0.5), state);
    EXPECT_DOUBLE_EQ(p1.values()[0].scalar(), 0.95);
    EXPECT_DOUBLE_EQ(s1.momentum.values()[0].scalar(), 0.5);
    const auto [p2, s2] = sgd.step(p1, like_with(p, 0.25), s1);
    EXPECT_DOUBLE_EQ(p2.values()[0].scalar(), 0.88);
    EXPECT_EQ(s2.steps, 2u);
}

TEST(Sgd, NesterovAndWeightDecayByHand) {
    const optim::Sgd sgd(
        {.learning_rate = 0.1, .momentum = 0.9, .nesterov = true, .weight_decay = 0.2});
    const Parameters<double> p = scalar_parameter(1.0);
    // g = 0.3 + 0.2 * 1 = 0.5, b = 0.5, d = 0.5 + 0.9 * 0.5 = 0.95, p = 1 - 0.095.
    const auto [p1, s1] = sgd.step(p, like_with(p, 0.3), sgd.start(p));
    EXPECT_DOUBLE_EQ(p1.values()[0].scalar(), 0.905);
}

// torch.optim.SGD's documented algorithm (dampening tau = 0).
TEST(Sgd, FollowsTorchOptimSgdOverSeveralSteps) {
    const Network<double> network = two_parameters();
    for (const bool nesterov : {false, true}) {
        const long double lr = 0.05L, mu = 0.8L, decay = 0.01L;
        const optim::Sgd sgd(
            {.learning_rate = 0.05, .momentum = 0.8, .nesterov = nesterov, .weight_decay = 0.01});
        Parameters<double> parameters = network.parameters();
        auto state = sgd.start(parameters);
        std::vector<long double> theta = flat(parameters);
        std::vector<long double> b(theta.size(), 0.0L);
        for (std::uint64_t t = 1; t <= 6; ++t) {
            const Parameters<double> gradients = drawn(parameters, 10 * t);
            const std::vector<long double> g0 = flat(gradients);
            for (std::size_t i = 0; i < theta.size(); ++i) {
                long double g = g0[i] + decay * theta[i];
                b[i] = t > 1 ? mu * b[i] + g : g;
                g = nesterov ? g + mu * b[i] : b[i];
                theta[i] -= lr * g;
            }
            auto [next, next_state] = sgd.step(parameters, gradients, state);
            parameters = next;
            state = next_state;
            expect_close(parameters, theta, 1e-14L);
        }
    }
}

TEST(Adam, FirstStepMovesEachParameterByTheLearningRate) {
    // m^ = g and v^ = g^2 at t = 1: the update is lr * g / (|g| + eps).
    const optim::Adam adam({.learning_rate = 0.1});
    const Parameters<double> p = scalar_parameter(1.0);
    const auto [p1, s1] = adam.step(p, like_with(p, 0.5), adam.start(p));
    EXPECT_NEAR(p1.values()[0].scalar(), 1.0 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-15);
    EXPECT_NEAR(s1.first_moment.values()[0].scalar(), 0.05, 1e-16);
    EXPECT_NEAR(s1.second_moment.values()[0].scalar(), 0.00025, 1e-18);
}

TEST(AdamW, DecaysTheParameterBeforeTheAdamStep) {
    // p = 1 * (1 - 0.1 * 0.1) - 0.1 * g / (|g| + eps) = 0.99 - 0.1.
    const optim::AdamW adamw({.learning_rate = 0.1, .weight_decay = 0.1});
    const Parameters<double> p = scalar_parameter(1.0);
    const auto [p1, s1] = adamw.step(p, like_with(p, -2.0), adamw.start(p));
    EXPECT_NEAR(p1.values()[0].scalar(), 0.99 + 0.1 * 2.0 / (2.0 + 1e-8), 1e-15);
    EXPECT_EQ(optim::AdamW().options().weight_decay, 0.01);
}

// torch.optim.Adam's (decoupled = false) or AdamW's documented algorithm.
void expect_adam_follows_torch(bool decoupled) {
    const Network<double> network = two_parameters();
    const long double lr = 0.01L, beta1 = 0.8L, beta2 = 0.95L, eps = 1e-6L, decay = 0.05L;
    const optim::Adam adam({.learning_rate = 0.01,
                            .beta1 = 0.8,
                            .beta2 = 0.95,
                            .epsilon = 1e-6,
                            .weight_decay = 0.05});
    const optim::AdamW adamw({.learning_rate = 0.01,
                              .beta1 = 0.8,
                              .beta2 = 0.95,
                              .epsilon = 1e-6,
                              .weight_decay = 0.05});
    const optim::Adam& optimizer = decoupled ? adamw : adam;
    Parameters<double> parameters = network.parameters();
    auto state = optimizer.start(parameters);
    std::vector<long double> theta = flat(parameters);
    std::vector<long double> m(theta.size(), 0.0L);
    std::vector<long double> v(theta.size(), 0.0L);
    for (int t = 1; t <= 6; ++t) {
        const Parameters<double> gradients = drawn(parameters, 100 + 10 * t);
        const std::vector<long double> g0 = flat(gradients);
        for (std::size_t i = 0; i < theta.size(); ++i) {
            long double g = g0[i];
            if (decoupled) {
                theta[i] -= lr * decay * theta[i];
            } else {
                g += decay * theta[i];
            }
            m[i] = beta1 * m[i] + (1 - beta1) * g;
            v[i] = beta2 * v[i] + (1 - beta2) * g * g;
            const long double m_hat = m[i] / (1 - std::pow(beta1, t));
            const long double v_hat = v[i] / (1 - std::pow(beta2, t));
            theta[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);
        }
        auto [next, next_state] = optimizer.step(parameters, gradients, state);
        parameters = next;
        state = next_state;
        expect_close(parameters, theta, 1e-13L);
        expect_close(state.first_moment, m, 1e-13L);
        expect_close(state.second_moment, v, 1e-13L);
    }
}

TEST(Adam, FollowsTorchOptimAdamOverSeveralSteps) {
    expect_adam_follows_torch(false);
}

TEST(AdamW, FollowsTorchOptimAdamWOverSeveralSteps) {
    expect_adam_follows_torch(true);
}

TEST(Optimizers, ArePureAStepRepeatedGivesTheSameBits) {
    const Network<double> network = two_parameters();
    const Parameters<double> parameters = network.parameters();
    const Parameters<double> gradients = drawn(parameters, 7);
    const optim::Adam adam;
    const auto state = adam.start(parameters);
    const auto [once, state_once] = adam.step(parameters, gradients, state);
    const auto [again, state_again] = adam.step(parameters, gradients, state);
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        test::expect_bit_equal(once.values()[slot], again.values()[slot]);
        test::expect_bit_equal(state_once.second_moment.values()[slot],
                               state_again.second_moment.values()[slot]);
    }
    EXPECT_EQ(state.steps, 0u);
    test::expect_bit_equal(state.first_moment.values()[0], Tensor<double>::filled(Shape{3}, 0.0));
}

// Two parameters, one long enough that a step shares it among the pool's threads.
Network<double> long_and_short_parameters() {
    Tape<double> tape;
    const Value<double> a = tape.parameter(init::normal(3, 1.0)(Shape{300, 300}));
    const Value<double> b = tape.parameter(init::normal(4, 1.0)(Shape{5}));
    (void)(a.sum() + b.sum());
    return std::move(tape).into_network();
}

template <class Optimizer>
void expect_in_place_steps_match_pure_steps(const Optimizer& optimizer) {
    const Network<double> network = long_and_short_parameters();
    Parameters<double> pure = network.parameters();
    auto pure_state = optimizer.start(pure);
    Parameters<double> in_place = network.parameters();
    auto in_place_state = optimizer.start(in_place);
    const double* buffer = in_place.values()[0].data().data();
    for (std::uint64_t t = 0; t < 4; ++t) {
        const Parameters<double> gradients = drawn(pure, 20 + 5 * t);
        optimizer.step(pure, gradients, pure_state).into(pure, pure_state);
        optimizer.step_in_place(in_place, gradients, in_place_state);
        for (std::size_t slot = 0; slot < pure.size(); ++slot) {
            test::expect_bit_equal(in_place.values()[slot], pure.values()[slot]);
        }
        EXPECT_EQ(in_place_state.steps, pure_state.steps);
    }
    // The network's own parameters held the first buffer, so the first step
    // copied it; from then on the steps write the same buffer.
    EXPECT_NE(in_place.values()[0].data().data(), buffer);
    const double* owned = in_place.values()[0].data().data();
    optimizer.step_in_place(in_place, drawn(pure, 99), in_place_state);
    EXPECT_EQ(in_place.values()[0].data().data(), owned);
}

TEST(Sgd, InPlaceStepsGiveThePureStepsBits) {
    expect_in_place_steps_match_pure_steps(
        optim::Sgd({.learning_rate = 0.05, .momentum = 0.8, .weight_decay = 0.01}));
    expect_in_place_steps_match_pure_steps(optim::Sgd(
        {.learning_rate = 0.05, .momentum = 0.8, .nesterov = true, .weight_decay = 0.01}));
}

TEST(Adam, InPlaceStepsGiveThePureStepsBits) {
    expect_in_place_steps_match_pure_steps(optim::Adam({.weight_decay = 0.01}));
    expect_in_place_steps_match_pure_steps(optim::AdamW({.learning_rate = 0.01}));
}

TEST(Optimizers, AnInPlaceStepLeavesEveryOtherValueAlone) {
    const Network<double> network = two_parameters();
    Parameters<double> parameters = network.parameters();
    const optim::Adam adam;
    auto state = adam.start(parameters);
    const Parameters<double> kept = parameters;
    const auto kept_state = state;
    adam.step_in_place(parameters, drawn(parameters, 3), state);
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        test::expect_bit_equal(kept.values()[slot], network.parameters().values()[slot]);
        test::expect_bit_equal(kept_state.first_moment.values()[slot],
                               Tensor<double>::filled(kept.values()[slot].shape(), 0.0));
        EXPECT_FALSE(parameters.values()[slot].bit_equal(kept.values()[slot]));
    }
    EXPECT_EQ(kept_state.steps, 0u);
    EXPECT_EQ(state.steps, 1u);
}

TEST(Optimizers, RefuseGradientsOfAnotherNetwork) {
    const Network<double> one = two_parameters();
    const Network<double> other = two_parameters();
    const optim::Sgd sgd;
    EXPECT_THROW((void)sgd.step(one.parameters(), other.parameters(), sgd.start(one.parameters())),
                 SymbolError);
    Parameters<double> parameters = one.parameters();
    auto state = sgd.start(parameters);
    EXPECT_THROW(sgd.step_in_place(parameters, other.parameters(), state), SymbolError);
    EXPECT_EQ(state.steps, 0u);
}

TEST(Optimizers, RefuseOptionsTorchRefuses) {
    EXPECT_THROW(optim::Sgd({.learning_rate = 0.1, .nesterov = true}), Error);
    EXPECT_THROW(optim::Adam({.beta1 = 1.0}), Error);
    EXPECT_THROW(optim::AdamW({.epsilon = 0}), Error);
}

TEST(Optimizers, WorkOnFloatParameters) {
    Tape<float> tape;
    (void)tape.parameter(Tensor<float>(Shape{2}, {1.0f, -1.0f}));
    const Parameters<float> p = std::move(tape).into_network().parameters();
    const Parameters<float> g = p.with_values({Tensor<float>(Shape{2}, {0.5f, -0.5f})});
    const optim::Adam adam({.learning_rate = 0.1});
    const auto [next, state] = adam.step(p, g, adam.start(p));
    EXPECT_NEAR(next.values()[0].data()[0], 0.9f, 1e-6f);
    EXPECT_NEAR(next.values()[0].data()[1], -0.9f, 1e-6f);
}

TEST(Schedules, StepDecayHalvesEveryPeriod) {
    const optim::StepDecay schedule(0.1, 3, 0.5);
    EXPECT_EQ(schedule(0), 0.1);
    EXPECT_EQ(schedule(2), 0.1);
    EXPECT_EQ(schedule(3), 0.05);
    EXPECT_EQ(schedule(6), 0.025);
    EXPECT_THROW(optim::StepDecay(0.1, 0, 0.5), Error);
}

TEST(Schedules, WarmupCosineRisesLinearlyThenFallsToTheFloor) {
    const optim::WarmupCosine schedule(1.0, 4, 12, 0.1);
    EXPECT_EQ(schedule(0), 0.0);
    EXPECT_EQ(schedule(2), 0.5);
    EXPECT_EQ(schedule(4), 1.0);
    EXPECT_NEAR(schedule(8), 0.55, 1e-15);  // half way: cos(pi / 2) = 0
    EXPECT_NEAR(schedule(6), 0.1 + 0.9 * (1 + std::cos(std::numbers::pi / 4)) / 2, 1e-15);
    EXPECT_EQ(schedule(12), 0.1);
    EXPECT_EQ(schedule(40), 0.1);
    EXPECT_THROW(optim::WarmupCosine(1.0, 12, 12), Error);
}

TEST(Schedules, DriveAnOptimizerThroughTheRateArgument) {
    const optim::Sgd sgd;
    const optim::StepDecay schedule(0.5, 1, 0.5);
    Parameters<double> p = scalar_parameter(1.0);
    auto state = sgd.start(p);
    for (int i = 0; i < 3; ++i) {  // rates 0.5, 0.25, 0.125 on a gradient of 1
        auto [next, next_state] = sgd.step(p, like_with(p, 1.0), state, schedule(state.steps));
        p = next;
        state = next_state;
    }
    EXPECT_EQ(p.values()[0].scalar(), 1.0 - 0.875);
}

TEST(Clipping, ScalesAllGradientsByTheGlobalNorm) {
    const Network<double> network = two_parameters();
    const Parameters<double> gradients = drawn(network.parameters(), 50);
    long double squares = 0;
    for (const long double g : flat(gradients)) {
        squares += g * g;
    }
    const long double norm = std::sqrt(squares);
    const auto [clipped, reported] = optim::clip_by_global_norm(gradients, 0.5);
    EXPECT_NEAR(reported, static_cast<double>(norm), 1e-15);
    std::vector<long double> expected = flat(gradients);
    for (long double& g : expected) {
        g *= 0.5L / (norm + 1e-6L);
    }
    expect_close(clipped, expected, 1e-15L);
    EXPECT_NEAR(optim::global_norm(clipped), 0.5, 1e-6);
}

TEST(Clipping, LeavesGradientsUnderTheLimitBitForBit) {
    const Network<double> network = two_parameters();
    const Parameters<double> gradients = drawn(network.parameters(), 60);
    const auto [clipped, norm] = optim::clip_by_global_norm(gradients, 100.0);
    EXPECT_LT(norm, 100.0);
    for (std::size_t slot = 0; slot < gradients.size(); ++slot) {
        test::expect_bit_equal(clipped.values()[slot], gradients.values()[slot]);
    }
    EXPECT_THROW((void)optim::clip_by_global_norm(gradients, -1.0), Error);
}

}  // namespace
}  // namespace topos
