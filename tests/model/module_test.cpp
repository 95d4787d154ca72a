// LayerNorm, Embedding and Dropout: forward against hand-written double
// references, gradients against finite differences, and the module protocol.
#include "model/module_checks.hpp"
#include "support/bit_equal.hpp"
#include "support/finite_differences.hpp"
#include <topos/core/error.hpp>
#include <topos/model/attention.hpp>
#include <topos/model/dropout.hpp>
#include <topos/model/embedding.hpp>
#include <topos/model/layer_norm.hpp>
#include <topos/model/mlp.hpp>
#include <topos/model/module.hpp>
#include <topos/model/transformer.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace topos {
namespace {

using test::near_relative;
using test::to_doubles;
using ::testing::HasSubstr;

static_assert(Module<Linear<double>, double>);
static_assert(Module<Mlp<float>, float>);
static_assert(Module<LayerNorm<double>, double>);
static_assert(Module<Embedding<float>, float>);
static_assert(Module<Dropout<double>, double>);
static_assert(Module<CausalSelfAttention<float>, float>);
static_assert(Module<TransformerBlock<double>, double>);

// y[r, :] = (x[r, :] - mean) / sqrt(biased variance + epsilon) * gain + shift.
std::vector<double> layer_norm_reference(const Tensor<double>& x,
                                         const Tensor<double>& gain,
                                         const Tensor<double>& shift,
                                         double epsilon) {
    const std::size_t features = gain.elements();
    std::vector<double> y(x.elements());
    for (std::size_t row = 0; row < x.elements() / features; ++row) {
        const auto in = x.data().subspan(row * features, features);
        double mean = 0;
        for (const double v : in) {
            mean += v / static_cast<double>(features);
        }
        double variance = 0;
        for (const double v : in) {
            variance += (v - mean) * (v - mean) / static_cast<double>(features);
        }
        for (std::size_t f = 0; f < features; ++f) {
            y[row * features + f] =
                (in[f] - mean) / std::sqrt(variance + epsilon) * gain.data()[f] + shift.data()[f];
        }
    }
    return y;
}

TEST(LayerNorm, NormalisesTheLastAxisAsTheReferenceDoes) {
    Tape<double> tape;
    const LayerNorm<double> norm(tape, 5, 1e-3);
    const Tensor<double> x = init::normal(1, 2.0)(Shape{2, 3, 5});
    const Value<double> y = norm.express(tape.input(x));
    const Symbol gain = norm.gain();
    const Symbol shift = norm.shift();
    const Network<double> network = std::move(tape).into_network();
    const Tensor<double> g = init::normal(2, 1.0)(Shape{5});
    const Tensor<double> b = init::normal(3, 1.0)(Shape{5});
    const auto parameters = network.parameters().with(gain, g).with(shift, b);
    const auto run = network.forward(parameters);
    EXPECT_TRUE(near_relative(to_doubles(run.of(y)), layer_norm_reference(x, g, b, 1e-3), 1e-14));
}

TEST(LayerNorm, GradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const LayerNorm<double> norm(tape, 4);
    const Value<double> x = tape.input(init::normal(4, 1.5)(Shape{3, 4}));
    const test::Weighted weighted = test::weighted_loss(tape, norm.express(x), 5);
    const std::vector<Symbol> sources{x, norm.gain(), norm.shift()};
    const Network<double> network = std::move(tape).into_network();
    const auto parameters = network.parameters()
                                .with(sources[1], init::normal(6, 1.0)(Shape{4}))
                                .with(sources[2], init::normal(7, 1.0)(Shape{4}));
    test::expect_gradients_match_finite_differences(network, parameters, {}, weighted, sources);
}

TEST(LayerNorm, RefusesAnInputWhoseLastAxisIsNotTheFeatures) {
    Tape<double> tape;
    const LayerNorm<double> norm(tape, 4);
    const Value<double> x = tape.input(Tensor<double>::filled(Shape{4, 3}, 1.0));
    EXPECT_THAT([&] { (void)norm.express(x); },
                ::testing::ThrowsMessage<ShapeError>(HasSubstr("features come last")));
}

TEST(Embedding, PicksOneRowOfTheTablePerIndex) {
    Tape<double> tape;
    const Embedding<double> embedding(tape, 5, 3, init::normal(8, 1.0));
    const Value<double> tokens = tape.indices(Shape{2, 2}, {4, 0, 2, 4});
    const Value<double> y = embedding.express(tokens);
    EXPECT_EQ(y.shape(), (Shape{2, 2, 3}));
    const Symbol table = embedding.table();
    const Network<double> network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters());
    const Tensor<double> rows = network.parameters().of(table);
    const std::size_t picks[] = {4, 0, 2, 4};
    for (std::size_t p = 0; p < 4; ++p) {
        for (std::size_t c = 0; c < 3; ++c) {
            EXPECT_EQ(run.of(y).data()[p * 3 + c], rows.data()[picks[p] * 3 + c]);
        }
    }
}

TEST(Embedding, TableGradientMatchesFiniteDifferences) {
    Tape<double> tape;
    const Embedding<double> embedding(tape, 4, 3, init::normal(9, 1.0));
    const Value<double> tokens = tape.indices(Shape{5}, {1, 3, 1, 0, 1});
    const test::Weighted weighted = test::weighted_loss(tape, embedding.express(tokens), 10);
    const std::vector<Symbol> sources{embedding.table()};
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, network.parameters(), {}, weighted, sources);
}

TEST(Dropout, WithoutAFedMaskIsTheIdentity) {
    Tape<double> tape;
    const Dropout<double> dropout(tape, Shape{3, 4}, 0.5);
    const Tensor<double> x = init::normal(11, 1.0)(Shape{3, 4});
    const Value<double> y = dropout.express(tape.input(x));
    const Network<double> network = std::move(tape).into_network();
    test::expect_bit_equal(network.forward(network.parameters()).of(y), x);
}

TEST(Dropout, AFedMaskDropsAboutTheRateAndScalesTheRest) {
    Tape<double> tape;
    const Dropout<double> dropout(tape, Shape{100, 100}, 0.25);
    const Tensor<double> x = Tensor<double>::filled(Shape{100, 100}, 3.0);
    const Value<double> y = dropout.express(tape.input(x));
    const Feed<double> mask = dropout.mask(12);
    const Network<double> network = std::move(tape).into_network();
    const Tensor<double> out = network.forward(network.parameters(), {mask}).of(y);
    double dropped = 0;
    for (const double v : out.data()) {
        ASSERT_TRUE(v == 0.0 || v == 3.0 / 0.75) << v;
        dropped += v == 0.0 ? 1 : 0;
    }
    // 10000 Bernoulli(0.25) draws: standard error 0.0043.
    EXPECT_NEAR(dropped / 10000, 0.25, 0.02);
    test::expect_bit_equal(dropout.mask(12).value, mask.value);
    EXPECT_FALSE(dropout.mask(13).value.bit_equal(mask.value));
}

TEST(Dropout, GradientIsTheMask) {
    Tape<double> tape;
    const Dropout<double> dropout(tape, Shape{2, 5}, 0.4);
    const Value<double> x = tape.input(init::normal(13, 1.0)(Shape{2, 5}));
    const test::Weighted weighted = test::weighted_loss(tape, dropout.express(x), 14);
    const std::vector<Feed<double>> feeds{dropout.mask(15)};
    const std::vector<Symbol> sources{x};
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, network.parameters(), feeds, weighted, sources);
    const Tensor<double> expected = feeds[0].value * weighted.weights;
    test::expect_bit_equal(
        network.forward(network.parameters(), feeds).backward(weighted.loss).of(x), expected);
}

TEST(Dropout, RefusesARateOutsideZeroToOne) {
    Tape<float> tape;
    EXPECT_THROW(Dropout<float>(tape, Shape{2}, 1.0), ShapeError);
    EXPECT_THROW(Dropout<float>(tape, Shape{2}, -0.1), ShapeError);
}

TEST(Modules, DescribeNamesWhatTheyHold) {
    Tape<float> tape;
    EXPECT_EQ(LayerNorm<float>(tape, 8).describe(),
              "LayerNorm(8, epsilon 1e-05): gain [8] at node 0, shift [8] at node 1");
    EXPECT_EQ(Embedding<float>(tape, 10, 4, init::zeros()).describe(),
              "Embedding(10 x 4): table [10, 4] at node 2");
    EXPECT_EQ(Dropout<float>(tape, Shape{2, 4}, 0.1).describe(),
              "Dropout(rate 0.1): mask input [2, 4] at node 3");
}

}  // namespace
}  // namespace topos
