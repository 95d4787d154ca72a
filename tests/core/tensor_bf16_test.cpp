// Tensor<bf16>: each operation computes on the elements widened to float, as
// float's tensors do, and rounds each result once (arithmetic, comparisons,
// sums and statistics along axes); conversions round once and widen exactly;
// text is each element's shortest decimal; argmax's positions stay exact.
#include "support/error_message.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace topos {
namespace {

Tensor<bf16> random_bf16(const Shape& shape, std::uint64_t seed) {
    std::mt19937_64 generator(seed);
    std::normal_distribution<float> normal(0.0F, 3.0F);
    std::vector<bf16> values;
    for (std::size_t i = 0; i < shape.elements(); ++i) {
        values.emplace_back(normal(generator));
    }
    return Tensor<bf16>(shape, values);
}

void expect_bits(const Tensor<bf16>& actual, const Tensor<float>& computed_in_float) {
    const Tensor<bf16> rounded = computed_in_float.convert<bf16>();
    ASSERT_EQ(actual.shape(), rounded.shape());
    for (std::size_t i = 0; i < actual.elements(); ++i) {
        ASSERT_EQ(actual.data()[i].bits(), rounded.data()[i].bits()) << "element " << i;
    }
}

TEST(TensorBf16, ArithmeticComputesEachElementInFloatAndRoundsOnce) {
    const Tensor<bf16> a = random_bf16(Shape{4, 5}, 1);
    const Tensor<bf16> b = random_bf16(Shape{5}, 2);  // broadcasts along the rows
    const Tensor<float> wa = a.convert<float>();
    const Tensor<float> wb = b.convert<float>();
    expect_bits(a + b, wa + wb);
    expect_bits(a - b, wa - wb);
    expect_bits(a * b, wa * wb);
    expect_bits(a / b, wa / wb);
    expect_bits(-a, -wa);
    // One element by hand: 1 + 2^-8 is not a bf16; the tie rounds to even, 1.
    const Tensor<bf16> one(bf16(1.0F));
    const Tensor<bf16> sum = one + Tensor<bf16>(bf16(std::ldexp(1.0F, -8)));
    EXPECT_EQ(sum.item().bits(), bf16(1.0F).bits());
}

TEST(TensorBf16, SumsAccumulateInFloatAndRoundOnce) {
    // 1 and 256 halves of its last place: added in bf16 each half would tie
    // back to 1; added in float they make 1.5.
    std::vector<bf16> values{bf16(1.0F)};
    values.insert(values.end(), 256, bf16(std::ldexp(1.0F, -9)));
    const Tensor<bf16> x(Shape{values.size()}, values);
    EXPECT_EQ(static_cast<float>(x.sum()), 1.5F);
    const Tensor<bf16> table = random_bf16(Shape{6, 7}, 3);
    const Tensor<float> wide = table.convert<float>();
    EXPECT_EQ(table.sum().bits(), bf16(wide.sum()).bits());
    EXPECT_EQ(table.mean().bits(), bf16(wide.mean()).bits());
    EXPECT_EQ(table.var().bits(), bf16(wide.var()).bits());
    EXPECT_EQ(table.std().bits(), bf16(wide.std()).bits());
    EXPECT_EQ(table.max().bits(), bf16(wide.max()).bits());
    EXPECT_EQ(table.min().bits(), bf16(wide.min()).bits());
}

TEST(TensorBf16, StatisticsAlongAxesAreFloatsRoundedOnce) {
    const Tensor<bf16> x = random_bf16(Shape{3, 4, 5}, 4);
    const Tensor<float> w = x.convert<float>();
    expect_bits(x.sum(1), w.sum(1));
    expect_bits(x.sum({0, 2}, true), w.sum({0, 2}, true));
    expect_bits(x.mean(0, true), w.mean(0, true));
    expect_bits(x.var(2), w.var(2));
    expect_bits(x.std({0, 1}), w.std({0, 1}));
    expect_bits(x.max(1), w.max(1));
    expect_bits(x.min({1, 2}), w.min({1, 2}));
    const Tensor<bf16> standardised = (x - x.mean(0, true)) / x.std(0, true);
    EXPECT_EQ(standardised.shape(), (Shape{3, 4, 5}));
}

TEST(TensorBf16, ComparisonsGiveOneAndZero) {
    const Tensor<bf16> a({3}, {bf16(1.0F), bf16(2.0F), std::numeric_limits<bf16>::quiet_NaN()});
    const Tensor<bf16> b(bf16(2.0F));
    const Tensor<bf16> less = a.less(b);
    EXPECT_EQ(static_cast<float>(less(0)), 1.0F);
    EXPECT_EQ(static_cast<float>(less(1)), 0.0F);
    EXPECT_EQ(static_cast<float>(less(2)), 0.0F);
    EXPECT_EQ(static_cast<float>(a.not_equal(b)(2)), 1.0F);
}

TEST(TensorBf16, ArgmaxPositionsAreExactUpTo256) {
    std::vector<bf16> values(257, bf16(0.0F));
    values.back() = bf16(1.0F);
    const Tensor<bf16> x(Shape{257}, values);
    EXPECT_EQ(static_cast<float>(x.argmax().item()), 256.0F);
    EXPECT_EQ(static_cast<float>(x.argmax(0).item()), 256.0F);
    values.push_back(bf16(2.0F));
    const Tensor<bf16> longer(Shape{258}, values);
    const std::string message = test::shape_error_of([&] { (void)longer.argmax(0); });
    EXPECT_NE(message.find("257 is not exactly representable in bf16"), std::string::npos)
        << message;
    EXPECT_NE(message.find("convert to float"), std::string::npos) << message;
}

TEST(TensorBf16, ConvertRoundsOnceAndWidensExactly) {
    const double just_past_a_tie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
    EXPECT_EQ(Tensor<double>(just_past_a_tie).convert<bf16>().item().bits(), 0x3f81U);
    const Tensor<bf16> x = random_bf16(Shape{2, 3}, 5);
    const Tensor<float> wide = x.convert<float>();
    for (std::size_t i = 0; i < x.elements(); ++i) {
        EXPECT_EQ(wide.data()[i], static_cast<float>(x.data()[i]));
    }
    EXPECT_TRUE(wide.convert<bf16>().bit_equal(x));
    EXPECT_TRUE(x.convert<double>().convert<bf16>().bit_equal(x));
    EXPECT_EQ(x.convert<bf16>().data().data(), x.data().data());  // the same type shares
    const Tensor<bf16> overflowing = Tensor<double>({2}, {3.4e38, -1e39}).convert<bf16>();
    EXPECT_TRUE(std::isinf(static_cast<float>(overflowing(0))));
    EXPECT_TRUE(std::isinf(static_cast<float>(overflowing(1))));
}

TEST(TensorBf16, PrintsEachElementsShortestDecimal) {
    const Tensor<bf16> x({2, 2},
                         {bf16(1.5F),
                          bf16(0.1F),
                          -std::numeric_limits<bf16>::infinity(),
                          std::numeric_limits<bf16>::quiet_NaN()});
    EXPECT_EQ(x.str(), "[[1.5, 0.1], [-inf, nan]]");
    EXPECT_EQ(x.describe().substr(0, x.describe().find('\n')), "Tensor<bf16> [2, 2]");
    EXPECT_TRUE(x.bit_equal(x.reshape(Shape{2, 2})));
    EXPECT_FALSE(x == x);  // NaN equals nothing
}

}  // namespace
}  // namespace topos
