// Convert (x.rounded_to<U>()): each element rounded once to U, kept in the
// tape's type. The values here are chosen by hand where the rounding rule
// shows: ties to even, a double whose rounding through float would land
// elsewhere, NaN, the edge of bf16's range, and types at least as wide as the
// tape's, which change nothing. The adjoint is rounded like the value.
#include "support/bit_equal.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;
using ::testing::HasSubstr;

template <Element T>
Tensor<T> rounded_by_a_plan(const Tensor<T>& values, ElementType to) {
    Tape<T> tape;
    const Value<T> rounded = tape.input(values).rounded_to(to);
    const Network<T> network = std::move(tape).into_network();
    return network.forward(network.parameters(), {}).of(rounded);
}

TEST(ConvertOpcode, RoundsFloatToTheNearestBf16TiesToEven) {
    const float below_tie = 1.0f + 0x1p-8f;      // halfway between 1 and 1 + 2^-7: to 1 (even)
    const float above_tie = 1.0f + 3 * 0x1p-8f;  // halfway to 1 + 2^-6 (even): up
    const float just_above = 1.0f + 0x1p-8f + 0x1p-20f;
    const Tensor<float> values({4}, {below_tie, above_tie, just_above, -0.0f});
    const Tensor<float> expected({4}, {1.0f, 1.0f + 0x1p-6f, 1.0f + 0x1p-7f, -0.0f});
    EXPECT_TRUE(bit_equal(rounded_by_a_plan(values, ElementType::BF16), expected));
}

TEST(ConvertOpcode, KeepsNaNAndOverflowsPastTheLargestBf16ToInfinity) {
    const float largest_bf16 = 0x1.fep127f;
    const float halfway_past = 0x1.ffp127f;  // rounds up to the next power of two: infinity
    const float infinity = std::numeric_limits<float>::infinity();
    const Tensor<float> values({4}, {largest_bf16, halfway_past, -halfway_past, 0x1.fe8p127f});
    const Tensor<float> expected({4}, {largest_bf16, infinity, -infinity, largest_bf16});
    EXPECT_TRUE(bit_equal(rounded_by_a_plan(values, ElementType::BF16), expected));
    const Tensor<float> nan({1}, {std::numeric_limits<float>::quiet_NaN()});
    EXPECT_TRUE(std::isnan(rounded_by_a_plan(nan, ElementType::BF16).data()[0]));
}

TEST(ConvertOpcode, RoundsADoubleToBf16OnceNotThroughFloat) {
    // Through float, 2^-40 is lost and the tie then goes to 1; rounded once,
    // the value is above the tie and goes up.
    const double value = 1.0 + 0x1p-8 + 0x1p-40;
    const Tensor<double> rounded =
        rounded_by_a_plan(Tensor<double>({1}, {value}), ElementType::BF16);
    EXPECT_EQ(rounded.data()[0], 1.0 + 0x1p-7);
    const Tensor<double> to_float =
        rounded_by_a_plan(Tensor<double>({1}, {1.0 + 0x1p-30}), ElementType::F32);
    EXPECT_EQ(to_float.data()[0], 1.0);
}

TEST(ConvertOpcode, ToATypeAtLeastAsWideChangesNothing) {
    const Tensor<float> floats({3}, {0.1f, -3.7e-39f, 1e30f});
    EXPECT_TRUE(bit_equal(rounded_by_a_plan(floats, ElementType::F32), floats));
    EXPECT_TRUE(bit_equal(rounded_by_a_plan(floats, ElementType::F64), floats));
    const Tensor<bf16> narrow = floats.convert<bf16>();
    for (const ElementType to : {ElementType::F32, ElementType::F64, ElementType::BF16}) {
        EXPECT_TRUE(bit_equal(rounded_by_a_plan(narrow, to), narrow)) << to;
    }
}

// y = sum(round(x) * w): the adjoint reaching x is w rounded to bf16, on both roads.
TEST(ConvertOpcode, PassesTheAdjointStraightThroughRoundedLikeTheValue) {
    const Tensor<float> weights({3}, {0.1f, 1.0f + 0x1p-8f + 0x1p-20f, -7.3f});
    Tape<float> tape;
    const Value<float> x = tape.parameter(Tensor<float>({3}, {0.3f, -1.2f, 2.0f}));
    const Value<float> loss = (x.rounded_to<bf16>() * tape.leaf(weights)).sum();
    const Adjoints<float> recorded = tape.differentiate(loss, {x});
    const Network<float> network = std::move(tape).into_network();
    const topos::Run<float> run = network.forward(network.parameters());
    const Tensor<float> expected = weights.convert<bf16>().convert<float>();
    EXPECT_TRUE(bit_equal(run.backward(loss).of(x), expected));
    EXPECT_TRUE(bit_equal(run.of(recorded.of(x)), expected));
}

TEST(ConvertOpcode, DescribesItsTargetAndEmitsConvertsThereAndBack) {
    Tape<float> tape;
    const Value<float> rounded = tape.input(Tensor<float>::filled({2, 3}, 0.5f)).rounded_to<bf16>();
    EXPECT_THAT(tape.describe(), HasSubstr("Convert        0 to=bf16"));
    const Network<float> network = std::move(tape).into_network();
    const std::string text = network.entry({rounded}).lower().emit_stablehlo();
    EXPECT_THAT(text, HasSubstr("stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xbf16>"));
    EXPECT_THAT(text, HasSubstr(": (tensor<2x3xbf16>) -> tensor<2x3xf32>"));
}

TEST(ConvertOpcode, RefusesANodeWithoutAnElementTypeAndSaysHowToGiveOne) {
    Tape<float> tape;
    const Value<float> x = tape.input(Tensor<float>::filled({2}, 1.0f));
    try {
        (void)x.apply(Opcode::Convert, {x});
        FAIL() << "Convert without attributes was recorded";
    } catch (const ShapeError& error) {
        EXPECT_THAT(error.what(), HasSubstr("rounded_to<bf16>()"));
    }
}

}  // namespace
}  // namespace topos
