// The oneDNN backend (TOPOS_ENABLE_ONEDNN): a float plan under Numerics::Fast
// computes its elected convolutions with oneDNN, each output within the
// reordered tolerance 2 k eps sum_p |a_p b_p| of the Exact plan's (k the
// filter's C*KH*KW taps), on one thread or two, with steps, padding and
// dilation; the tally names `onednn` as `reordered`. Exact plans, double plans
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
        EXPECT_EQ(onednn->formulas, std::vector<std::string>{"WindowProduct"});
    }
}

}  // namespace
}  // namespace topos
