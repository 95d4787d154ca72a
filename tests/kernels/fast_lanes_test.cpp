// The Fast numerics' float transcendentals (kernels/fast_transcendental.hpp)
// stay within their documented distance of the exact functions
// (docs/exact-math.md) over their pieces' boundaries, special values, random
// bit patterns and ranges; take the exact functions' limits at zeros,
// infinities and NaN; and give the same bits on every instruction set this
// processor runs, with tails shorter than a vector and in place.
#include "core/exact_math.hpp"
#include "kernels/fast_transcendental.hpp"
#include "kernels/transcendental.hpp"
#include <topos/core/isa.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topos::detail {
namespace {

struct Bound {
    ExactFunction function;
    std::int64_t ulps;  // the largest distance over every float (tools/fast_lanes_sweep.cpp)
};

constexpr Bound bounds[] = {{ExactFunction::Exp, 1},
                            {ExactFunction::Tanh, 2},
                            {ExactFunction::Sigmoid, 2},
                            {ExactFunction::Erf, 2},
                            {ExactFunction::Gelu, 7},
                            {ExactFunction::Log, 1},
                            {ExactFunction::Softplus, 2}};

// Floats in order as integers: the distance of two is how many floats apart
// they are (+0 and -0 one apart).
std::int64_t ordered(float x) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    const auto magnitude = static_cast<std::int64_t>(bits & 0x7fffffffU);
    return (bits & 0x80000000U) != 0 ? -magnitude - 1 : magnitude;
}

std::vector<float> inputs() {
    std::vector<float> x;
    const float edges[] = {0.0f,    0x1p-149f, 0x1p-126f, 0x1p-60f, 0x1p-24f, 0x1p-12f,
                           0.3466f, 0.5f,      0.55f,     0.7071f,  1.0f,     1.4142f,
                           2.0f,    3.92f,     9.01f,     10.61f,   15.0f,    44.0f,
                           87.33f,  88.72f,    89.0f,     103.97f,  104.0f,   3.4e38f};
    for (const float edge : edges) {
        for (const float e : {edge, -edge}) {
            x.push_back(e);
            x.push_back(std::nextafter(e, std::numeric_limits<float>::infinity()));
            x.push_back(std::nextafter(e, -std::numeric_limits<float>::infinity()));
        }
    }
    std::mt19937 random(20261203);
    std::uniform_int_distribution<std::uint32_t> bits;
    for (int i = 0; i < 1 << 16; ++i) {
        const std::uint32_t pattern = bits(random);
        float value = 0;
        std::memcpy(&value, &pattern, sizeof value);
        x.push_back(value);
    }
    for (const float scale : {1.0f, 4.0f, 20.0f, 120.0f}) {
        std::uniform_real_distribution<float> uniform(-scale, scale);
        for (int i = 0; i < 1 << 16; ++i) {
            x.push_back(uniform(random));
        }
    }
    return x;
}

std::string text_of(float x) {
    char text[32];
    std::snprintf(text, sizeof text, "%a", static_cast<double>(x));
    return text;
}

TEST(FastLanes, StayWithinTheirBoundOfTheExactFunctions) {
    const std::vector<float> x = inputs();
    std::vector<float> exact(x.size());
    std::vector<float> fast(x.size());
    for (const Bound& bound : bounds) {
        exact_map_portable(bound.function, x.data(), exact.data(), x.size());
        fast_map_on(isa(), bound.function, x.data(), fast.data(), x.size());
        std::int64_t worst = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(std::isnan(exact[i]), std::isnan(fast[i]))
                << name_of(bound.function) << " at " << text_of(x[i]);
            if (!std::isnan(exact[i])) {
                const std::int64_t distance = std::abs(ordered(exact[i]) - ordered(fast[i]));
                ASSERT_LE(distance, bound.ulps)
                    << name_of(bound.function) << " at " << text_of(x[i]) << ": "
                    << text_of(fast[i]) << ", exact " << text_of(exact[i]);
                worst = std::max(worst, distance);
            }
        }
        EXPECT_GT(worst, 0) << name_of(bound.function)
                            << " is the exact function: its bound "
                               "should be 0 and its cost the exact one's";
    }
}

TEST(FastLanes, TakeTheExactLimitsAtZerosAndInfinities) {
    constexpr float infinity = std::numeric_limits<float>::infinity();
    const float specials[] = {0.0f, -0.0f, infinity, -infinity, 1e-45f, -1e-45f};
    for (const Bound& bound : bounds) {
        for (const float x : specials) {
            const float fast = fast_of(bound.function, x);
            float expected = 0;
            exact_map_portable(bound.function, &x, &expected, 1);
            if (std::isnan(expected)) {
                EXPECT_TRUE(std::isnan(fast)) << name_of(bound.function) << " at " << text_of(x);
            } else if (std::isinf(expected) || expected == 0.0f) {
                EXPECT_EQ(ordered(fast), ordered(expected))
                    << name_of(bound.function) << " at " << text_of(x);
            }
        }
        const float nan = std::numeric_limits<float>::quiet_NaN();
        EXPECT_TRUE(std::isnan(fast_of(bound.function, nan))) << name_of(bound.function);
    }
}

TEST(FastLanes, EveryInstructionSetGivesTheSameBits) {
    const std::vector<float> x = inputs();
    for (const Bound& bound : bounds) {
        std::vector<float> portable(x.size());
        fast_map_on(Isa::Portable, bound.function, x.data(), portable.data(), x.size());
        for (std::size_t i = 0; i < 64; ++i) {
            const float one = fast_of(bound.function, x[i]);
            EXPECT_EQ(std::memcmp(&one, &portable[i], sizeof one), 0) << name_of(bound.function);
        }
        for (const Isa set : supported_isas()) {
            for (const std::size_t count :
                 {std::size_t{1}, std::size_t{7}, std::size_t{37}, x.size()}) {
                std::vector<float> lanes(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(count));
                fast_map_on(set, bound.function, lanes.data(), lanes.data(), count);  // in place
                EXPECT_EQ(std::memcmp(lanes.data(), portable.data(), count * sizeof(float)), 0)
                    << name_of(bound.function) << " on " << name_of(set) << ", " << count
                    << " elements";
            }
        }
        std::vector<float> shared(x.size());
        fast_map(bound.function, x.data(), shared.data(), x.size());
        EXPECT_EQ(std::memcmp(shared.data(), portable.data(), x.size() * sizeof(float)), 0)
            << name_of(bound.function) << " shared among the threads";
    }
}

}  // namespace
}  // namespace topos::detail
