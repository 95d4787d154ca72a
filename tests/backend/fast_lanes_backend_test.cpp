// The Fast lanes backend (TOPOS_ENABLE_FAST_LANES): a float plan under
// Numerics::Fast runs exp, tanh, sigmoid, erf, gelu, log and softplus in the
// Fast lanes, as steps and as members of map regions, each element within the
// function's documented distance (docs/exact-math.md) of the Exact plan's,
// and says so in the tally; Exact plans and double plans keep the exact bits.
// LogSumExp and LogSoftmax take the Fast exps and log, within the bound that
// follows from theirs. Without the backend a Fast plan gives the Exact plan's
// bits.
#include "support/bit_equal.hpp"
#include <topos/config.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;

constexpr bool has_fast_lanes = TOPOS_HAS_FAST_LANES == 1;

struct Function {
    std::string formula;
    std::function<Value<float>(const Value<float>&)> apply;
    std::int64_t ulps;  // the bound over every float, tools/fast_lanes_sweep.cpp
};

std::vector<Function> functions() {
    return {{"Exp", [](const Value<float>& x) { return x.exp(); }, 1},
            {"Tanh", [](const Value<float>& x) { return x.tanh(); }, 2},
            {"Sigmoid", [](const Value<float>& x) { return x.sigmoid(); }, 2},
            {"Erf", [](const Value<float>& x) { return x.erf(); }, 2},
            {"Gelu", [](const Value<float>& x) { return x.gelu(); }, 7},
            {"Log", [](const Value<float>& x) { return x.abs().log(); }, 1},
            {"Softplus", [](const Value<float>& x) { return x.softplus(); }, 2}};
}

std::int64_t ordered(float x) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    const auto magnitude = static_cast<std::int64_t>(bits & 0x7fffffffU);
    return (bits & 0x80000000U) != 0 ? -magnitude - 1 : magnitude;
}

// Every element of `fast` within `ulps` of `exact`'s.
::testing::AssertionResult within_ulps(const Tensor<float>& fast,
                                       const Tensor<float>& exact,
                                       std::int64_t ulps) {
    for (std::size_t i = 0; i < exact.data().size(); ++i) {
        const std::int64_t distance = std::abs(ordered(fast.data()[i]) - ordered(exact.data()[i]));
        if (distance > ulps) {
            return ::testing::AssertionFailure()
                   << "element " << i << ": " << fast.data()[i] << " is " << distance
                   << " ulps from " << exact.data()[i];
        }
    }
    return ::testing::AssertionSuccess();
}

// The function alone (a step) and inside a map region, scaled by 2 (exact,
// so the region's result keeps the function's distance), over 4096 elements.
TEST(FastLanesBackend, FastFloatPlansServeTranscendentalsWithinTheirBounds) {
    for (const Function& f : functions()) {
        Tape<float> tape;
        auto x = tape.input(init::normal(7, 3.0)(Shape{64, 64}));
        auto alone = f.apply(x);
        auto region = f.apply(x * 0.5f) * 2.0f;
        const auto network = std::move(tape).into_network();
        for (const Symbol root : {alone, region}) {
            const auto fast = network.entry({root}).numerics(Numerics::Fast).lower();
            const auto exact = network.entry({root}).numerics(Numerics::Exact).lower();
            Tensor<float> fast_value;
            const Tally tally =
                Backend::tallied([&] { fast_value = fast.forward(network.parameters()).of(root); });
            const Tensor<float> exact_value = exact.forward(network.parameters()).of(root);
            EXPECT_EQ(tally.count(f.formula, "fast-lanes"), has_fast_lanes ? 1u : 0u)
                << f.formula << '\n'
                << tally;
            EXPECT_TRUE(within_ulps(fast_value, exact_value, f.ulps)) << f.formula;
            // With the backend the lanes ran (a few of 4096 elements are off
            // the exact bits); without it, the Exact plan's bits.
            EXPECT_EQ(bit_equal(fast_value, exact_value), !has_fast_lanes) << f.formula;
        }
    }
}

// One unit in the last place of the larger of two floats.
double ulp_of_larger(float a, float b) {
    const float larger = std::max(std::fabs(a), std::fabs(b));
    return static_cast<double>(std::nextafter(larger, std::numeric_limits<float>::infinity())) -
           static_cast<double>(larger);
}

// The distance docs/exact-math.md allows between a Fast and an Exact row
// function over rows of n terms: 2^-23 (D + 1 + 2 max(1, ln n)) for the exps
// (1 ulp each), the striped sums (depth D = ceil(n / 16) + 4) and the logs (1
// ulp of the Fast one, half of the exact one's), then one ulp of each value
// rounded after the log: the normaliser, and LogSoftmax's result.
double row_function_bound(std::size_t n) {
    const double depth = std::ceil(static_cast<double>(n) / 16.0) + 4.0;
    const double log_n = std::max(1.0, std::log(static_cast<double>(n)));
    return std::ldexp(depth + 1.0 + 2.0 * log_n, -23);
}

// Logits of 64 x 300 with an -inf, one line along the reduced axis offset by
// 10^4 and an outlier, reduced along each axis as LogSumExp and LogSoftmax.
Tensor<float> logits_reduced_along(std::size_t axis) {
    const Tensor<float> normal = init::normal(11, 3.0)(Shape{64, 300});
    std::vector<float> values(normal.data().begin(), normal.data().end());
    values[5] = -std::numeric_limits<float>::infinity();
    const std::size_t extent = axis == 1 ? 300 : 64;
    const std::size_t stride = axis == 1 ? 1 : 300;
    const std::size_t line = axis == 1 ? 300 : 1;  // row 1, or column 1
    for (std::size_t a = 0; a < extent; ++a) {
        values[line + a * stride] += 1.0e4f;
    }
    values[2 * 300 + 7] = 60.0f;
    return Tensor<float>(Shape{64, 300}, values);
}

TEST(FastLanesBackend, FastLogSumExpAndLogSoftmaxStayWithinTheirBound) {
    bool any_off_the_exact_bits = false;
    for (const std::size_t axis : {0, 1}) {
        const Tensor<float> logits = logits_reduced_along(axis);
        Tape<float> tape;
        auto x = tape.input(logits);
        auto sums = x.logsumexp(axis);
        auto normalised = x.log_softmax(axis);
        const auto network = std::move(tape).into_network();
        const auto fast = network.entry({sums, normalised}).numerics(Numerics::Fast).lower();
        const auto exact = network.entry({sums, normalised}).numerics(Numerics::Exact).lower();
        std::optional<topos::Run<float>> fast_run;
        const Tally tally =
            Backend::tallied([&] { fast_run.emplace(fast.forward(network.parameters())); });
        const topos::Run<float>& fast_result = *fast_run;
        const topos::Run<float> exact_result = exact.forward(network.parameters());
        for (const char* formula : {"LogSumExp", "LogSoftmax"}) {
            EXPECT_EQ(tally.count(formula, "fast-lanes"), has_fast_lanes ? 1u : 0u) << tally;
        }
        const double bound = row_function_bound(logits.shape()[axis]);
        const Tensor<float>& fast_sums = fast_result.of(sums);
        const Tensor<float>& exact_sums = exact_result.of(sums);
        for (std::size_t row = 0; row < exact_sums.data().size(); ++row) {
            const float f = fast_sums.data()[row];
            const float e = exact_sums.data()[row];
            EXPECT_LE(std::fabs(static_cast<double>(f) - e), bound + ulp_of_larger(f, e))
                << "LogSumExp along " << axis << ", row " << row << ": " << f << " and " << e;
        }
        const Tensor<float>& fast_values = fast_result.of(normalised);
        const Tensor<float>& exact_values = exact_result.of(normalised);
        for (std::size_t i = 0; i < exact_values.data().size(); ++i) {
            const float f = fast_values.data()[i];
            const float e = exact_values.data()[i];
            if (std::isinf(e)) {
                EXPECT_EQ(f, e) << i;
                continue;
            }
            const std::size_t row = axis == 1 ? i / 300 : i % 300;
            const double normaliser_ulp =
                ulp_of_larger(fast_sums.data()[row], exact_sums.data()[row]);
            EXPECT_LE(std::fabs(static_cast<double>(f) - e),
                      bound + normaliser_ulp + ulp_of_larger(f, e))
                << "LogSoftmax along " << axis << ", element " << i << ": " << f << " and " << e;
        }
        // Without the backend the plans are the same exact kernels.
        const bool same = bit_equal(fast_sums, exact_sums) && bit_equal(fast_values, exact_values);
        EXPECT_TRUE(same || has_fast_lanes) << "along " << axis;
        any_off_the_exact_bits = any_off_the_exact_bits || !same;
    }
    // With the backend the Fast functions ran: some results are off the exact
    // bits. After rounding, every result along one axis may agree (the 64 rows
    // of 300 terms of these logits do), so the two axes are judged together.
    EXPECT_EQ(any_off_the_exact_bits, has_fast_lanes);
}

TEST(FastLanesBackend, ExactAndDoublePlansKeepTheExactBits) {
    for (const Function& f : functions()) {
        Tape<float> tape;
        auto x = tape.input(init::normal(8, 3.0)(Shape{64, 64}));
        auto y = f.apply(x * 0.5f) * 2.0f;
        const auto network = std::move(tape).into_network();
        const auto exact = network.entry({y}).numerics(Numerics::Exact).lower();
        const Tally tally = Backend::tallied([&] {
            EXPECT_TRUE(bit_equal(exact.forward(network.parameters()).of(y),
                                  network.forward(network.parameters()).of(y)));
        });
        EXPECT_EQ(tally.count(f.formula, "fast-lanes"), 0u) << tally;
    }
    Tape<double> tape;
    auto x = tape.input(init::normal(9, 3.0)(Shape{64, 64}));
    auto y = (x.tanh() + x.gelu() + x.exp() + x.sigmoid() + x.softplus() + x.erf()) * 2.0;
    const auto network = std::move(tape).into_network();
    const auto fast = network.entry({y}).numerics(Numerics::Fast).lower();
    EXPECT_TRUE(bit_equal(fast.forward(network.parameters()).of(y),
                          network.forward(network.parameters()).of(y)));
}

TEST(FastLanesBackend, IsListedWithItsFidelityWhereCompiledIn) {
    const std::vector<BackendInfo> backends = Backend::available();
    const auto lanes = std::find_if(backends.begin(), backends.end(), [](const BackendInfo& b) {
        return b.name == "fast-lanes";
    });
    ASSERT_EQ(lanes != backends.end(), has_fast_lanes);
    if (has_fast_lanes) {
        EXPECT_EQ(lanes->fidelity, Fidelity::Approximate);
        EXPECT_EQ(name_of(lanes->fidelity), "approximate");
    }
}

}  // namespace
}  // namespace topos
