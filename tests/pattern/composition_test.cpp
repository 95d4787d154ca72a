// The compositions compute what their names promise: conv2d, max_pool,
// average_pool and both batch norms against direct loops written from their
// textbook definitions, in double.
#include "support/finite_differences.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace topos {
namespace {

struct Image {
    std::size_t n, c, h, w;
    std::vector<double> values;

    double at(std::size_t b, std::size_t ch, std::ptrdiff_t y, std::ptrdiff_t x) const {
        if (y < 0 || x < 0 || y >= std::ptrdiff_t(h) || x >= std::ptrdiff_t(w)) {
            return 0.0;
        }
        return values[((b * c + ch) * h + std::size_t(y)) * w + std::size_t(x)];
    }
};

Image image_of(const Tensor<double>& t) {
    const Shape& s = t.shape();
    return {s[0], s[1], s[2], s[3], std::vector<double>(t.data().begin(), t.data().end())};
}

TEST(Composition, Conv2dIsADirectConvolution) {
    const std::size_t stride = 2, padding = 1, dilation = 2;
    const Tensor<double> pixels = init::normal(1, 1.0)(Shape{2, 3, 9, 8});
    const Tensor<double> weights = init::normal(2, 1.0)(Shape{4, 3, 3, 2});
    const Tensor<double> offsets = init::normal(3, 1.0)(Shape{4});
    Tape<double> tape;
    auto out = conv2d(tape.input(pixels),
                      tape.parameter(weights),
                      tape.parameter(offsets),
                      stride,
                      padding,
                      dilation);
    const auto network = std::move(tape).into_network();
    const Tensor<double> result = network.forward(network.parameters()).of(out);
    const Image x = image_of(pixels);
    const Image k = image_of(weights);
    const Shape& s = result.shape();
    for (std::size_t b = 0; b < s[0]; ++b) {
        for (std::size_t o = 0; o < s[1]; ++o) {
            for (std::size_t oy = 0; oy < s[2]; ++oy) {
                for (std::size_t ox = 0; ox < s[3]; ++ox) {
                    double expected = offsets.data()[o];
                    for (std::size_t ch = 0; ch < x.c; ++ch) {
                        for (std::size_t ky = 0; ky < k.h; ++ky) {
                            for (std::size_t kx = 0; kx < k.w; ++kx) {
                                const auto y = std::ptrdiff_t(oy * stride + ky * dilation) -
                                               std::ptrdiff_t(padding);
                                const auto xx = std::ptrdiff_t(ox * stride + kx * dilation) -
                                                std::ptrdiff_t(padding);
                                expected += x.at(b, ch, y, xx) *
                                            k.at(o, ch, std::ptrdiff_t(ky), std::ptrdiff_t(kx));
                            }
                        }
                    }
                    const double actual = result.data()[((b * s[1] + o) * s[2] + oy) * s[3] + ox];
                    EXPECT_NEAR(actual, expected, 1e-12) << b << ' ' << o << ' ' << oy << ' ' << ox;
                }
            }
        }
    }
}

TEST(Composition, PoolingsTakeTheMaximumAndTheMeanOfEachWindow) {
    const Tensor<double> pixels = init::normal(4, 1.0)(Shape{2, 2, 7, 6});
    Tape<double> tape;
    auto input = tape.input(pixels);
    auto maxima = max_pool(input, 3, 2);
    auto means = average_pool(input, 2, 1);
    const auto network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters());
    const Image x = image_of(pixels);
    const auto check = [&](const Tensor<double>& result,
                           std::size_t size,
                           std::size_t stride,
                           bool maximum) {
        const Shape& s = result.shape();
        for (std::size_t i = 0; i < result.data().size(); ++i) {
            const std::size_t ox = i % s[3], oy = i / s[3] % s[2], ch = i / (s[2] * s[3]) % s[1],
                              b = i / (s[1] * s[2] * s[3]);
            double best = -std::numeric_limits<double>::infinity();
            double total = 0.0;
            for (std::size_t ky = 0; ky < size; ++ky) {
                for (std::size_t kx = 0; kx < size; ++kx) {
                    const double v = x.at(
                        b, ch, std::ptrdiff_t(oy * stride + ky), std::ptrdiff_t(ox * stride + kx));
                    best = std::max(best, v);
                    total += v;
                }
            }
            const double expected = maximum ? best : total / double(size * size);
            EXPECT_NEAR(result.data()[i], expected, 1e-14) << i;
        }
    };
    check(run.of(maxima), 3, 2, true);
    check(run.of(means), 2, 1, false);
}

TEST(Composition, BatchNormNormalisesEachChannelOverTheBatch) {
    const Tensor<double> pixels = init::normal(5, 3.0)(Shape{4, 3, 2, 5});
    const Tensor<double> gamma = init::normal(6, 1.0)(Shape{3});
    const Tensor<double> beta = init::normal(7, 1.0)(Shape{3});
    const Tensor<double> running_mean = init::normal(8, 1.0)(Shape{3});
    const Tensor<double> running_variance = init::uniform(9, 0.5, 2.0)(Shape{3});
    const double epsilon = 1e-3;
    Tape<double> tape;
    auto input = tape.input(pixels);
    auto g = tape.parameter(gamma);
    auto b = tape.parameter(beta);
    const BatchNormTraining<double> training = batch_norm_training(input, g, b, epsilon);
    auto inference = batch_norm_inference(
        input, g, b, tape.input(running_mean), tape.input(running_variance), epsilon);
    const auto network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters());
    const Image x = image_of(pixels);
    for (std::size_t ch = 0; ch < 3; ++ch) {
        double mean = 0.0, squares = 0.0;
        const double count = double(x.n * x.h * x.w);
        for (std::size_t i = 0; i < x.values.size(); ++i) {
            if (i / (x.h * x.w) % x.c == ch) {
                mean += x.values[i] / count;
            }
        }
        for (std::size_t i = 0; i < x.values.size(); ++i) {
            if (i / (x.h * x.w) % x.c == ch) {
                squares += (x.values[i] - mean) * (x.values[i] - mean) / count;
            }
        }
        EXPECT_NEAR(run.of(training.mean).data()[ch], mean, 1e-13);
        EXPECT_NEAR(run.of(training.variance).data()[ch], squares, 1e-12);
        for (std::size_t i = 0; i < x.values.size(); ++i) {
            if (i / (x.h * x.w) % x.c != ch) {
                continue;
            }
            const double trained =
                (x.values[i] - mean) / std::sqrt(squares + epsilon) * gamma.data()[ch] +
                beta.data()[ch];
            const double inferred = (x.values[i] - running_mean.data()[ch]) /
                                        std::sqrt(running_variance.data()[ch] + epsilon) *
                                        gamma.data()[ch] +
                                    beta.data()[ch];
            EXPECT_NEAR(run.of(training.output).data()[i], trained, 1e-12);
            EXPECT_NEAR(run.of(inference).data()[i], inferred, 1e-12);
        }
    }
}

TEST(Composition, AConvNetsRecordedGradientsMatchFiniteDifferences) {
    Tape<double> tape;
    auto image = tape.input(init::normal(10, 1.0)(Shape{2, 2, 6, 6}));
    auto filters = tape.parameter(init::normal(11, 0.5)(Shape{3, 2, 3, 3}));
    auto bias = tape.parameter(init::normal(12, 0.1)(Shape{3}));
    auto gamma = tape.parameter(init::normal(13, 1.0)(Shape{3}));
    auto beta = tape.parameter(init::normal(14, 1.0)(Shape{3}));
    auto convolved = conv2d(image, filters, bias, 1, 1).tanh();
    auto normalised = batch_norm_training(convolved, gamma, beta).output;
    auto loss = max_pool(normalised, 2, 2).square().sum() + average_pool(normalised, 3, 3).sum();
    const auto adjoints = tape.differentiate(loss, {filters, bias, gamma, beta, image});
    const auto network = std::move(tape).into_network();
    const auto parameters = network.parameters();
    const auto run = network.entry(adjoints.roots()).lower().forward(parameters);
    for (const Symbol source :
         {filters.symbol(), bias.symbol(), gamma.symbol(), beta.symbol(), image.symbol()}) {
        const test::Jacobian jacobian =
            test::network_jacobian(network, parameters, {}, loss, source);
        EXPECT_TRUE(test::near_relative(
            test::to_doubles(run.of(adjoints.of(source))), jacobian.values, 1e-7))
            << "d loss / d node " << source.index();
    }
}

}  // namespace
}  // namespace topos
