// The Fast lanes backend (TOPOS_ENABLE_FAST_LANES): a float plan under
// Numerics::Fast runs exp, tanh, sigmoid, erf, gelu, log and softplus in the
// Fast lanes, as steps and as members of map regions, each element within the
// function's documented distance (docs/exact-math.md) of the Exact plan's,
// and says so in the tally; Exact plans and double plans keep the exact bits.
// Without the backend a Fast plan gives the Exact plan's bits.
#include "support/bit_equal.hpp"
#include <topos/config.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

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
