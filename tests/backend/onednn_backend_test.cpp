// The oneDNN backend (TOPOS_ENABLE_ONEDNN): a float plan under Numerics::Fast
// computes its elected convolutions with oneDNN, each output within the
// reordered tolerance 2 k eps sum_p |a_p b_p| of the Exact plan's (k the
// products it sums: the filter's C*KH*KW taps forward), on one thread or two,
// with steps, padding and dilation; so do large convolutions' filter and image
// gradients; the tally names `onednn` as `reordered`. Exact plans, double plans
// and small convolutions keep the reference kernels. Without the backend a
// Fast plan gives the Exact plan's bits.
#include "support/bit_equal.hpp"
#include "support/thread_count_guard.hpp"
#include <topos/config.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;

constexpr bool has_onednn = TOPOS_HAS_ONEDNN == 1;

struct Convolution {
    std::size_t batch, channels, height, width, filters, kernel, stride, padding, dilation;
};

std::string name_of(const Convolution& c) {
    return std::to_string(c.channels) + "x" + std::to_string(c.height) + "x" +
           std::to_string(c.width) + " -> " + std::to_string(c.filters) + ", kernel " +
           std::to_string(c.kernel) + ", stride " + std::to_string(c.stride) + ", padding " +
           std::to_string(c.padding) + ", dilation " + std::to_string(c.dilation);
}

// Each one the backend serves (at least 2^16 multiply-adds, at least 32 taps
// a filter); the last two are split among the threads (2^20 multiply-adds or
// more): an odd batch in unequal slices, an even one in equal slices that run
// at once.
std::vector<Convolution> convolutions() {
    return {{4, 4, 12, 10, 8, 3, 1, 1, 1},
            {8, 8, 15, 15, 6, 3, 2, 0, 1},
            {4, 4, 16, 16, 5, 3, 1, 2, 2},
            {8, 6, 17, 17, 16, 5, 3, 1, 1},
            {15, 16, 16, 16, 16, 3, 1, 1, 1},
            {16, 8, 14, 14, 16, 3, 1, 1, 1}};
}

// conv2d(image, filters, bias) and, from the magnitudes of the same inputs
// with no bias, sum_p |a_p b_p| for every output.
struct Recorded {
    Network<float> network;
    Symbol convolved;
    Symbol magnitude;
};

Recorded record(const Convolution& c) {
    Tape<float> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{c.batch, c.channels, c.height, c.width}));
    auto filters =
        tape.parameter(init::normal(2, 0.5)(Shape{c.filters, c.channels, c.kernel, c.kernel}));
    auto bias = tape.parameter(init::normal(3, 0.1)(Shape{c.filters}));
    auto zero = tape.parameter(Tensor<float>::filled(Shape{c.filters}, 0.0f));
    auto convolved = conv2d(image, filters, bias, c.stride, c.padding, c.dilation);
    auto magnitude = conv2d(image.abs(), filters.abs(), zero, c.stride, c.padding, c.dilation);
    return {std::move(tape).into_network(), convolved, magnitude};
}

TEST(OneDnnBackend, FastConvolutionsStayWithinTheReorderedTolerance) {
    const test::ThreadCountGuard restore_threads;
    const double eps = std::numeric_limits<float>::epsilon();
    for (const Convolution& c : convolutions()) {
        const Recorded r = record(c);
        const auto exact = r.network.entry({r.convolved, r.magnitude}).numerics(Numerics::Exact);
        const topos::Run<float> reference = exact.lower().forward(r.network.parameters());
        const Tensor<float>& exact_values = reference.of(r.convolved);
        const Tensor<float>& magnitudes = reference.of(r.magnitude);
        const double taps = static_cast<double>(c.channels * c.kernel * c.kernel);
        const auto fast = r.network.entry({r.convolved}).numerics(Numerics::Fast).lower();
        for (const std::size_t threads : {1, 2}) {
            set_threads(threads);
            std::optional<topos::Run<float>> run;
            const Tally tally =
                Backend::tallied([&] { run.emplace(fast.forward(r.network.parameters())); });
            EXPECT_EQ(tally.count("WindowProduct", "onednn"), has_onednn ? 1u : 0u)
                << name_of(c) << '\n'
                << tally;
            const Tensor<float>& fast_values = run->of(r.convolved);
            ASSERT_EQ(fast_values.shape(), exact_values.shape()) << name_of(c);
            for (std::size_t i = 0; i < exact_values.data().size(); ++i) {
                const double exact_value = exact_values.data()[i];
                // The product's tolerance, and the bias's addition rounded once more.
                const double bound =
                    2.0 * taps * eps * magnitudes.data()[i] + eps * std::abs(exact_value);
                EXPECT_LE(std::abs(fast_values.data()[i] - exact_value), bound)
                    << name_of(c) << ", " << threads << " threads, element " << i;
            }
            if (!has_onednn) {
                EXPECT_TRUE(bit_equal(fast_values, exact_values)) << name_of(c);
            }
        }
    }
}

// Convolutions whose gradients the backend serves (at least 2^24
// multiply-adds): unit steps, a step of 2 over an odd batch, and dilation.
std::vector<Convolution> large_convolutions() {
    return {{8, 32, 16, 16, 32, 3, 1, 1, 1},
            {33, 32, 18, 18, 40, 3, 2, 1, 1},
            {8, 32, 16, 16, 32, 3, 1, 2, 2}};
}

// The gradients of loss = sum(conv2d(image, filters, bias) * weights): the
// gradient flowing into the convolution is `weights` itself, and the
// convolution's value is not needed.
struct RecordedGradients {
    Network<float> network;
    Adjoints<float> adjoints;
    Symbol image, filters;
    Tensor<float> image_values, filter_values, weight_values;
};

RecordedGradients record_gradients(const Convolution& c) {
    const std::size_t out =
        (c.height + 2 * c.padding - c.dilation * (c.kernel - 1) - 1) / c.stride + 1;
    Tape<float> tape;
    const auto image_values = init::normal(1, 1.0)(Shape{c.batch, c.channels, c.height, c.width});
    const auto filter_values =
        init::normal(2, 0.5)(Shape{c.filters, c.channels, c.kernel, c.kernel});
    const auto weight_values = init::normal(4, 1.0)(Shape{c.batch, c.filters, out, out});
    auto image = tape.parameter(image_values);
    auto filters = tape.parameter(filter_values);
    auto bias = tape.parameter(init::normal(3, 0.1)(Shape{c.filters}));
    auto weights = tape.input(weight_values);
    auto loss = (conv2d(image, filters, bias, c.stride, c.padding, c.dilation) * weights).sum();
    auto adjoints = tape.differentiate(loss, {image.symbol(), filters.symbol()});
    return {std::move(tape).into_network(),
            std::move(adjoints),
            image.symbol(),
            filters.symbol(),
            image_values,
            filter_values,
            weight_values};
}

// For each element of the filter and image gradients, sum_p |a_p b_p| over
// the products it sums, in double, from the inputs' magnitudes.
struct GradientMagnitudes {
    std::vector<double> filters;  // [O, C, KH, KW]
    std::vector<double> image;    // [N, C, H, W]
};

GradientMagnitudes gradient_magnitudes(const Convolution& c, const RecordedGradients& r) {
    const std::size_t out = r.weight_values.shape()[2];
    GradientMagnitudes m{std::vector<double>(r.filter_values.data().size()),
                         std::vector<double>(r.image_values.data().size())};
    const auto& x = r.image_values.data();
    const auto& w = r.filter_values.data();
    const auto& g = r.weight_values.data();
    for (std::size_t n = 0; n < c.batch; ++n) {
        for (std::size_t o = 0; o < c.filters; ++o) {
            for (std::size_t oh = 0; oh < out; ++oh) {
                for (std::size_t ow = 0; ow < out; ++ow) {
                    const double gradient =
                        std::abs(g[((n * c.filters + o) * out + oh) * out + ow]);
                    for (std::size_t ch = 0; ch < c.channels; ++ch) {
                        for (std::size_t kh = 0; kh < c.kernel; ++kh) {
                            for (std::size_t kw = 0; kw < c.kernel; ++kw) {
                                const auto ih =
                                    static_cast<std::ptrdiff_t>(oh * c.stride + kh * c.dilation) -
                                    static_cast<std::ptrdiff_t>(c.padding);
                                const auto iw =
                                    static_cast<std::ptrdiff_t>(ow * c.stride + kw * c.dilation) -
                                    static_cast<std::ptrdiff_t>(c.padding);
                                if (ih < 0 || iw < 0 ||
                                    ih >= static_cast<std::ptrdiff_t>(c.height) ||
                                    iw >= static_cast<std::ptrdiff_t>(c.width)) {
                                    continue;
                                }
                                const std::size_t at = ((n * c.channels + ch) * c.height +
                                                        static_cast<std::size_t>(ih)) *
                                                           c.width +
                                                       static_cast<std::size_t>(iw);
                                const std::size_t tap =
                                    ((o * c.channels + ch) * c.kernel + kh) * c.kernel + kw;
                                m.filters[tap] += gradient * std::abs(x[at]);
                                m.image[at] += gradient * std::abs(w[tap]);
                            }
                        }
                    }
                }
            }
        }
    }
    return m;
}

void expect_within(const Tensor<float>& fast,
                   const Tensor<float>& exact,
                   const std::vector<double>& magnitudes,
                   double products,
                   const std::string& what) {
    const double eps = std::numeric_limits<float>::epsilon();
    ASSERT_EQ(fast.shape(), exact.shape()) << what;
    for (std::size_t i = 0; i < exact.data().size(); ++i) {
        const double bound = 2.0 * products * eps * magnitudes[i];
        ASSERT_LE(std::abs(static_cast<double>(fast.data()[i]) - exact.data()[i]), bound)
            << what << ", element " << i;
    }
}

TEST(OneDnnBackend, FastConvolutionGradientsStayWithinTheReorderedTolerance) {
    const test::ThreadCountGuard restore_threads;
    for (const Convolution& c : large_convolutions()) {
        const RecordedGradients r = record_gradients(c);
        const Symbol image_gradient = r.adjoints.of(r.image);
        const Symbol filter_gradient = r.adjoints.of(r.filters);
        const auto exact =
            r.network.entry({image_gradient, filter_gradient}).numerics(Numerics::Exact);
        const topos::Run<float> reference = exact.lower().forward(r.network.parameters());
        const GradientMagnitudes magnitudes = gradient_magnitudes(c, r);
        const std::size_t out = r.weight_values.shape()[2];
        const auto fast =
            r.network.entry({image_gradient, filter_gradient}).numerics(Numerics::Fast).lower();
        for (const std::size_t threads : {1, 2}) {
            set_threads(threads);
            std::optional<topos::Run<float>> run;
            const Tally tally =
                Backend::tallied([&] { run.emplace(fast.forward(r.network.parameters())); });
            const std::string what = name_of(c) + ", " + std::to_string(threads) + " threads";
            EXPECT_EQ(tally.count("WindowFold", "onednn"), has_onednn ? 1u : 0u) << what << '\n'
                                                                                 << tally;
            EXPECT_EQ(tally.count("WindowProduct", "onednn"), has_onednn ? 1u : 0u)
                << what << " (the filter gradient)\n"
                << tally;
            expect_within(run->of(filter_gradient),
                          reference.of(filter_gradient),
                          magnitudes.filters,
                          static_cast<double>(c.batch * out * out),
                          what + ", filter gradient");
            expect_within(run->of(image_gradient),
                          reference.of(image_gradient),
                          magnitudes.image,
                          static_cast<double>(c.filters * c.kernel * c.kernel),
                          what + ", image gradient");
        }
    }
}

TEST(OneDnnBackend, SmallConvolutionGradientsStayOnTheReference) {
    const RecordedGradients r = record_gradients(convolutions().back());
    const auto fast = r.network.entry({r.adjoints.of(r.image), r.adjoints.of(r.filters)})
                          .numerics(Numerics::Fast)
                          .lower();
    const Tally tally = Backend::tallied([&] { fast.forward(r.network.parameters()); });
    EXPECT_EQ(tally.count("WindowFold", "reference"), 1u) << tally;
    EXPECT_EQ(tally.count("WindowProduct", "reference"), 1u) << "the filter gradient\n" << tally;
}

TEST(OneDnnBackend, ExactAndDoublePlansKeepTheReferenceKernels) {
    const Recorded r = record(convolutions().front());
    const auto exact = r.network.entry({r.convolved}).numerics(Numerics::Exact).lower();
    const Tally tally = Backend::tallied([&] {
        EXPECT_TRUE(bit_equal(exact.forward(r.network.parameters()).of(r.convolved),
                              r.network.forward(r.network.parameters()).of(r.convolved)));
    });
    EXPECT_EQ(tally.count("WindowProduct", "reference"), 1u) << tally;
    EXPECT_EQ(tally.count("WindowProduct", "onednn"), 0u) << tally;

    Tape<double> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{4, 3, 12, 10}));
    auto filters = tape.parameter(init::normal(2, 0.5)(Shape{8, 3, 3, 3}));
    auto bias = tape.parameter(init::normal(3, 0.1)(Shape{8}));
    auto convolved = conv2d(image, filters, bias, 1, 1);
    const auto network = std::move(tape).into_network();
    const auto fast = network.entry({convolved}).numerics(Numerics::Fast).lower();
    const Tally double_tally = Backend::tallied([&] {
        EXPECT_TRUE(bit_equal(fast.forward(network.parameters()).of(convolved),
                              network.forward(network.parameters()).of(convolved)));
    });
    EXPECT_EQ(double_tally.count("WindowProduct", "onednn"), 0u) << double_tally;
}

// The seeds' convolution (a [1, 1, 6, 6] image, 2 filters 3x3: 288
// multiply-adds) and a LeNet first layer (one channel, 9 taps a filter), which
// the reference computes faster.
TEST(OneDnnBackend, SmallAndShallowConvolutionsStayOnTheReference) {
    for (const Convolution& c :
         {Convolution{1, 1, 6, 6, 2, 3, 1, 0, 1}, Convolution{8, 1, 28, 28, 8, 3, 1, 1, 1}}) {
        const Recorded r = record(c);
        const auto fast = r.network.entry({r.convolved}).numerics(Numerics::Fast).lower();
        const Tally tally = Backend::tallied([&] { fast.forward(r.network.parameters()); });
        EXPECT_EQ(tally.count("WindowProduct", "reference"), 1u) << name_of(c) << '\n' << tally;
        EXPECT_EQ(tally.count("WindowProduct", "onednn"), 0u) << name_of(c) << '\n' << tally;
    }
}

TEST(OneDnnBackend, IsListedAsReorderedWhereCompiledIn) {
    const std::vector<BackendInfo> backends = Backend::available();
    const auto onednn = std::find_if(
        backends.begin(), backends.end(), [](const BackendInfo& b) { return b.name == "onednn"; });
    ASSERT_EQ(onednn != backends.end(), has_onednn);
    if (has_onednn) {
        EXPECT_EQ(onednn->fidelity, Fidelity::Reordered);
        EXPECT_EQ(onednn->formulas, (std::vector<std::string>{"WindowProduct", "WindowFold"}));
    }
}

}  // namespace
}  // namespace topos
