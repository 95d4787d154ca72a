// Conv2d, MaxPool2d and BatchNorm: forwards against direct loops, gradients
// against finite differences, and BatchNorm's running statistics against
// values derived by hand.
#include "model/module_checks.hpp"
#include "support/finite_differences.hpp"
#include <topos/core/error.hpp>
#include <topos/model/batch_norm.hpp>
#include <topos/model/conv2d.hpp>
#include <topos/model/max_pool.hpp>
#include <topos/model/module.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace topos {
namespace {

using test::near_relative;
using test::to_doubles;

static_assert(Module<Conv2d<double>, double>);
static_assert(Module<MaxPool2d<float>, float>);
static_assert(Module<BatchNorm<double>, double>);

struct Image {
    std::size_t channels, height, width;
};

// y[n, o, i, j] = b[o] + sum_{c, u, v} x[n, c, i s + u - p, j s + v - p] w[o, c, u, v],
// zero outside the image.
std::vector<double> convolution_reference(const Tensor<double>& x,
                                          const Tensor<double>& w,
                                          const Tensor<double>& b,
                                          std::size_t stride,
                                          std::size_t padding) {
    const Shape& xs = x.shape();
    const Shape& ws = w.shape();
    const std::size_t oh = (xs[2] + 2 * padding - ws[2]) / stride + 1;
    const std::size_t ow = (xs[3] + 2 * padding - ws[3]) / stride + 1;
    std::vector<double> y;
    for (std::size_t n = 0; n < xs[0]; ++n) {
        for (std::size_t o = 0; o < ws[0]; ++o) {
            for (std::size_t i = 0; i < oh; ++i) {
                for (std::size_t j = 0; j < ow; ++j) {
                    double total = b.data()[o];
                    for (std::size_t c = 0; c < xs[1]; ++c) {
                        for (std::size_t u = 0; u < ws[2]; ++u) {
                            for (std::size_t v = 0; v < ws[3]; ++v) {
                                const auto row = static_cast<std::ptrdiff_t>(i * stride + u) -
                                                 static_cast<std::ptrdiff_t>(padding);
                                const auto column = static_cast<std::ptrdiff_t>(j * stride + v) -
                                                    static_cast<std::ptrdiff_t>(padding);
                                if (row < 0 || column < 0 ||
                                    row >= static_cast<std::ptrdiff_t>(xs[2]) ||
                                    column >= static_cast<std::ptrdiff_t>(xs[3])) {
                                    continue;
                                }
                                const std::size_t at =
                                    ((n * xs[1] + c) * xs[2] + static_cast<std::size_t>(row)) *
                                        xs[3] +
                                    static_cast<std::size_t>(column);
                                total += x.data()[at] *
                                         w.data()[((o * ws[1] + c) * ws[2] + u) * ws[3] + v];
                            }
                        }
                    }
                    y.push_back(total);
                }
            }
        }
    }
    return y;
}

TEST(Conv2d, ConvolvesAsTheDirectLoopDoes) {
    Tape<double> tape;
    const Conv2d<double> conv(
        tape,
        {.in_channels = 2, .out_channels = 3, .kernel = 3, .stride = 2, .padding = 1},
        init::kaiming(1));
    const Tensor<double> x = init::normal(2, 1.0)(Shape{2, 2, 5, 6});
    const Value<double> y = conv.express(tape.input(x));
    EXPECT_EQ(y.shape(), (Shape{2, 3, 3, 3}));
    const Symbol filters = conv.filters();
    const Symbol bias = conv.bias();
    const Network<double> network = std::move(tape).into_network();
    const Tensor<double> b = init::normal(3, 1.0)(Shape{3});
    const auto parameters = network.parameters().with(bias, b);
    const auto run = network.forward(parameters);
    EXPECT_TRUE(near_relative(
        to_doubles(run.of(y)), convolution_reference(x, parameters.of(filters), b, 2, 1), 1e-13));
}

TEST(Conv2d, KaimingFiltersHaveTheFanInScale) {
    Tape<float> tape;
    const Conv2d<float> conv(
        tape, {.in_channels = 8, .out_channels = 16, .kernel = 3}, init::kaiming(4));
    const Network<float> network = std::move(tape).into_network();
    const std::vector<double> w = to_doubles(network.parameters().of(conv.filters()));
    double squares = 0;
    for (const double v : w) {
        squares += v * v;
    }
    const double stddev = std::sqrt(squares / static_cast<double>(w.size()));
    EXPECT_NEAR(stddev, std::sqrt(2.0 / (8 * 9)), 0.1 * std::sqrt(2.0 / (8 * 9)));
}

TEST(Conv2d, GradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const Conv2d<double> conv(
        tape, {.in_channels = 2, .out_channels = 2, .kernel = 2, .padding = 1}, init::xavier(5));
    const Value<double> x = tape.input(init::normal(6, 1.0)(Shape{1, 2, 3, 3}));
    const test::Weighted weighted = test::weighted_loss(tape, conv.express(x), 7);
    const std::vector<Symbol> sources{x, conv.filters(), conv.bias()};
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, network.parameters(), {}, weighted, sources);
}

TEST(Conv2d, RefusesAZeroKernel) {
    Tape<double> tape;
    EXPECT_THROW(
        (Conv2d<double>(tape, {.in_channels = 1, .out_channels = 1, .kernel = 0}, init::xavier(1))),
        ShapeError);
}

TEST(MaxPool2d, TakesTheMaximumOfEachWindowAsTheDirectLoopDoes) {
    Tape<double> tape;
    const MaxPool2d<double> pool(2);
    const Tensor<double> x = init::normal(8, 1.0)(Shape{2, 3, 4, 6});
    const Value<double> y = pool.express(tape.input(x));
    ASSERT_EQ(y.shape(), (Shape{2, 3, 2, 3}));
    EXPECT_TRUE(pool.parameters().empty());
    const Network<double> network = std::move(tape).into_network();
    std::vector<double> expected;
    for (std::size_t plane = 0; plane < 6; ++plane) {
        for (std::size_t i = 0; i < 2; ++i) {
            for (std::size_t j = 0; j < 3; ++j) {
                double best = -std::numeric_limits<double>::infinity();
                for (std::size_t u = 0; u < 2; ++u) {
                    for (std::size_t v = 0; v < 2; ++v) {
                        best = std::max(best, x.data()[plane * 24 + (2 * i + u) * 6 + 2 * j + v]);
                    }
                }
                expected.push_back(best);
            }
        }
    }
    EXPECT_EQ(to_doubles(network.forward(network.parameters()).of(y)), expected);
}

TEST(MaxPool2d, GradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const MaxPool2d<double> pool(2, 1);
    const Value<double> x = tape.input(init::normal(9, 1.0)(Shape{1, 2, 3, 3}));
    const test::Weighted weighted = test::weighted_loss(tape, pool.express(x), 10);
    const std::vector<Symbol> sources{x};
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, network.parameters(), {}, weighted, sources);
}

// Per channel c: mean and biased variance over (n, h, w), then
// (x - mean) / sqrt(variance + epsilon) * gamma[c] + beta[c].
std::vector<double> batch_norm_reference(const Tensor<double>& x,
                                         const std::vector<double>& mean,
                                         const std::vector<double>& variance,
                                         const Tensor<double>& gamma,
                                         const Tensor<double>& beta,
                                         double epsilon) {
    const Shape& s = x.shape();
    const std::size_t plane = s[2] * s[3];
    std::vector<double> y(x.elements());
    for (std::size_t i = 0; i < y.size(); ++i) {
        const std::size_t c = (i / plane) % s[1];
        y[i] = (x.data()[i] - mean[c]) / std::sqrt(variance[c] + epsilon) * gamma.data()[c] +
               beta.data()[c];
    }
    return y;
}

struct ChannelStatistics {
    std::vector<double> mean, variance;
};

ChannelStatistics channel_statistics(const Tensor<double>& x) {
    const Shape& s = x.shape();
    const std::size_t plane = s[2] * s[3];
    const auto count = static_cast<double>(s[0] * plane);
    ChannelStatistics statistics{std::vector<double>(s[1]), std::vector<double>(s[1])};
    for (std::size_t i = 0; i < x.elements(); ++i) {
        statistics.mean[(i / plane) % s[1]] += x.data()[i] / count;
    }
    for (std::size_t i = 0; i < x.elements(); ++i) {
        const std::size_t c = (i / plane) % s[1];
        const double d = x.data()[i] - statistics.mean[c];
        statistics.variance[c] += d * d / count;
    }
    return statistics;
}

TEST(BatchNorm, TrainingNormalisesByTheBatchStatistics) {
    Tape<double> tape;
    const BatchNorm<double> norm(tape, 3, 1e-3);
    const Tensor<double> x = init::normal(11, 2.0)(Shape{4, 3, 2, 2});
    const BatchNormTraining<double> y = norm.training(tape.input(x));
    const Network<double> network = std::move(tape).into_network();
    const Tensor<double> gamma = init::normal(12, 1.0)(Shape{3});
    const Tensor<double> beta = init::normal(13, 1.0)(Shape{3});
    const auto run =
        network.forward(network.parameters().with(norm.gamma(), gamma).with(norm.beta(), beta));
    const ChannelStatistics expected = channel_statistics(x);
    EXPECT_TRUE(near_relative(to_doubles(run.of(y.mean)), expected.mean, 1e-13));
    EXPECT_TRUE(near_relative(to_doubles(run.of(y.variance)), expected.variance, 1e-13));
    EXPECT_TRUE(
        near_relative(to_doubles(run.of(y.output)),
                      batch_norm_reference(x, expected.mean, expected.variance, gamma, beta, 1e-3),
                      1e-13));
}

TEST(BatchNorm, InferenceNormalisesByTheFedStatistics) {
    Tape<double> tape;
    const BatchNorm<double> norm(tape, 2);
    const Value<double> x = tape.input(init::normal(14, 1.0)(Shape{3, 2, 2, 3}));
    const StatisticsInputs<double> statistics = norm.statistics_inputs(tape);
    const Value<double> y = norm.inference(x, statistics);
    const Network<double> network = std::move(tape).into_network();
    const Tensor<double> mean({2}, {0.5, -1.0});
    const Tensor<double> variance({2}, {4.0, 0.25});
    const auto run = network.forward(network.parameters(),
                                     {{statistics.mean, mean}, {statistics.variance, variance}});
    const Tensor<double> input = network.forward(network.parameters()).of(x);
    EXPECT_TRUE(near_relative(to_doubles(run.of(y)),
                              batch_norm_reference(input,
                                                   {0.5, -1.0},
                                                   {4.0, 0.25},
                                                   Tensor<double>({2}, {1.0, 1.0}),
                                                   Tensor<double>({2}, {0.0, 0.0}),
                                                   1e-5),
                              1e-14));
}

TEST(BatchNorm, TrainingGradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const BatchNorm<double> norm(tape, 2);
    const Value<double> x = tape.input(init::normal(15, 1.5)(Shape{3, 2, 2, 2}));
    const test::Weighted weighted = test::weighted_loss(tape, norm.express(x), 16);
    const std::vector<Symbol> sources{x, norm.gamma(), norm.beta()};
    const Network<double> network = std::move(tape).into_network();
    const auto parameters = network.parameters()
                                .with(sources[1], init::normal(17, 1.0)(Shape{2}))
                                .with(sources[2], init::normal(18, 1.0)(Shape{2}));
    test::expect_gradients_match_finite_differences(
        network, parameters, {}, weighted, sources, 1e-6);
}

// momentum 0.25, 4 elements per channel: from mean 0 and variance 1,
//   mean'     = 0.75 * 0 + 0.25 * 2           = 0.5
//   variance' = 0.75 * 1 + 0.25 * 3 * 4 / 3   = 1.75
// and a second step with batch mean -2 and biased variance 0.75:
//   mean''     = 0.75 * 0.5  + 0.25 * -2          = -0.125
//   variance'' = 0.75 * 1.75 + 0.25 * 0.75 * 4 / 3 = 1.5625
TEST(BatchNorm, RunningStatisticsFollowPyTorchsUpdate) {
    Tape<double> tape;
    const BatchNorm<double> norm(tape, 1, 1e-5, 0.25);
    const RunningStatistics<double> start = norm.start();
    EXPECT_EQ(to_doubles(start.mean), (std::vector<double>{0.0}));
    EXPECT_EQ(to_doubles(start.variance), (std::vector<double>{1.0}));
    const auto once = norm.update(start, Tensor<double>({1}, {2.0}), Tensor<double>({1}, {3.0}), 4);
    EXPECT_EQ(to_doubles(once.mean), (std::vector<double>{0.5}));
    EXPECT_EQ(to_doubles(once.variance), (std::vector<double>{1.75}));
    const auto twice =
        norm.update(once, Tensor<double>({1}, {-2.0}), Tensor<double>({1}, {0.75}), 4);
    EXPECT_EQ(to_doubles(twice.mean), (std::vector<double>{-0.125}));
    EXPECT_EQ(to_doubles(twice.variance), (std::vector<double>{1.5625}));
}

TEST(BatchNorm, RunningStatisticsFromATrainingRunMatchTheLoops) {
    Tape<double> tape;
    const BatchNorm<double> norm(tape, 3);
    const Tensor<double> x = init::normal(19, 1.0)(Shape{2, 3, 2, 2});
    const BatchNormTraining<double> y = norm.training(tape.input(x));
    const Network<double> network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters());
    const auto next = norm.update(
        norm.start(), run.of(y.mean), run.of(y.variance), elements_per_channel(x.shape()));
    const ChannelStatistics batch = channel_statistics(x);
    std::vector<double> mean, variance;
    for (std::size_t c = 0; c < 3; ++c) {
        mean.push_back(0.1 * batch.mean[c]);
        variance.push_back(0.9 + 0.1 * batch.variance[c] * 8.0 / 7.0);
    }
    EXPECT_TRUE(near_relative(to_doubles(next.mean), mean, 1e-14));
    EXPECT_TRUE(near_relative(to_doubles(next.variance), variance, 1e-14));
}

TEST(BatchNorm, RefusesStatisticsOfAnotherShapeAndASingleElement) {
    Tape<double> tape;
    const BatchNorm<double> norm(tape, 2);
    const auto start = norm.start();
    EXPECT_THROW((void)norm.update(start, Tensor<double>({3}, {1, 2, 3}), start.variance, 4),
                 ShapeError);
    EXPECT_THROW((void)norm.update(start, start.mean, start.variance, 1), ShapeError);
}

TEST(BatchNorm, TrainingOnOneValuePerChannelIsRefusedAsTorchRefusesIt) {
    for (const Shape& shape : {Shape{1, 3}, Shape{1, 3, 1, 1}}) {
        Tape<double> tape;
        const BatchNorm<double> norm(tape, 3);
        const Value<double> x = tape.input(Tensor<double>::filled(shape, 0.5));
        try {
            (void)norm.training(x);
            FAIL() << "training over " << shape << " was recorded";
        } catch (const ShapeError& error) {
            EXPECT_NE(std::string(error.what()).find("holds one value per channel"),
                      std::string::npos)
                << error.what();
        }
        EXPECT_NO_THROW((void)norm.inference(x, norm.statistics_inputs(tape)));
    }
}

TEST(BatchNorm, AnEmptyBatchStillRecordsAndCountsNoElementsPerChannel) {
    Tape<double> tape;
    const BatchNorm<double> norm(tape, 3);
    EXPECT_NO_THROW((void)norm.training(tape.input(Tensor<double>::filled(Shape{0, 3, 2}, 0.5))));
    EXPECT_EQ(elements_per_channel(Shape{0, 3, 2}), 0U);
    EXPECT_EQ(elements_per_channel(Shape{4, 0, 2, 3}), 24U);
}

}  // namespace
}  // namespace topos
