// Tensor<T>: construction, value semantics (copies share one immutable
// buffer), elementwise arithmetic with rank-0 broadcasting, equality, and
// printing with the shortest decimal that round-trips.
#include "support/bit_equal.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace topos {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <class T>
std::string printed(const Tensor<T>& tensor) {
    std::ostringstream out;
    out << tensor;
    return out.str();
}

template <class T>
std::vector<T> elements(const Tensor<T>& tensor) {
    return {tensor.data().begin(), tensor.data().end()};
}

TEST(Tensor, HoldsAShapeAndRowMajorElements) {
    const Tensor<float> t({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f});
    EXPECT_EQ(t.shape(), (Shape{2, 2}));
    EXPECT_EQ(t.elements(), 4u);
    EXPECT_THAT(elements(t), ElementsAre(0.5f, -0.25f, 0.25f, 0.4f));
}

TEST(Tensor, FromAScalarIsRankZero) {
    const Tensor<double> a = 2.0;
    EXPECT_EQ(a.shape(), Shape{});
    EXPECT_EQ(a.scalar(), 2.0);
}

TEST(Tensor, DefaultsToARankZeroZero) {
    const Tensor<float> t;
    EXPECT_EQ(t.shape(), Shape{});
    EXPECT_EQ(t.scalar(), 0.0f);
    EXPECT_FALSE(std::signbit(t.scalar()));
}

TEST(Tensor, IsFilledWithOneValue) {
    const Tensor<float> t = Tensor<float>::filled({2, 3}, 1.5f);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_THAT(elements(t), ElementsAre(1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 1.5f));
}

TEST(Tensor, CopiesAnyContiguousRange) {
    const std::vector<double> values{1, 2, 3, 4, 5, 6};
    const Tensor<double> from_vector(Shape{3, 2}, values);
    EXPECT_THAT(elements(from_vector), ElementsAre(1, 2, 3, 4, 5, 6));
    const std::array<float, 2> array{7.0f, 8.0f};
    const Tensor<float> from_array(Shape{2}, array);
    EXPECT_THAT(elements(from_array), ElementsAre(7.0f, 8.0f));
    EXPECT_NE(from_vector.data().data(), values.data());  // copied, not borrowed
}

TEST(Tensor, RejectsAnElementCountThatDiffersFromTheShape) {
    try {
        const Tensor<float> t({2, 3}, {1.0f, 2.0f});
        FAIL() << "accepted 2 elements for a [2, 3] tensor: " << t;
    } catch (const ShapeError& error) {
        EXPECT_THAT(error.what(), HasSubstr("[2, 3]"));
        EXPECT_THAT(error.what(), HasSubstr("6"));
        EXPECT_THAT(error.what(), HasSubstr("2"));
    }
}

TEST(Tensor, RejectsAShapeTooLargeToAddressBeforeAllocating) {
    EXPECT_THROW((void)Tensor<double>::filled({std::size_t{1} << 62, 4}, 1.0), ShapeError);
    EXPECT_THROW((void)Tensor<float>::filled({std::size_t{1} << 61, 0, 1 << 4}, 1.0F), ShapeError);
}

TEST(Tensor, WithAZeroExtentHoldsNoElementsAndCompares) {
    const Tensor<double> empty = Tensor<double>::filled({0, 3}, 1.0);
    EXPECT_EQ(empty.elements(), 0u);
    EXPECT_TRUE(empty.data().empty());
    EXPECT_EQ(empty, (Tensor<double>({0, 3}, std::vector<double>{})));
    EXPECT_FALSE(empty == (Tensor<double>({3, 0}, std::vector<double>{})));
}

TEST(Tensor, ReadsTheScalarOfAnyOneElementTensor) {
    EXPECT_EQ(Tensor<double>({1, 1}, {3.5}).scalar(), 3.5);
    EXPECT_THROW(Tensor<double>::filled({2}, 1.0).scalar(), ShapeError);
}

TEST(Tensor, CopiesShareStorage) {
    const Tensor<float> a({3}, {1.0f, 2.0f, 3.0f});
    const Tensor<float> b = a;  // NOLINT(performance-unnecessary-copy-initialization)
    EXPECT_EQ(a.data().data(), b.data().data());
    Tensor<float> c = Tensor<float>::filled({1}, 0.0f);
    c = a;
    EXPECT_EQ(c.data().data(), a.data().data());
}

TEST(Tensor, ArithmeticLeavesItsOperandsUnchanged) {
    const Tensor<double> a({2}, {1.0, 2.0});
    const Tensor<double> alias = a;
    const Tensor<double> sum = a + a;
    EXPECT_THAT(elements(sum), ElementsAre(2.0, 4.0));
    EXPECT_THAT(elements(a), ElementsAre(1.0, 2.0));
    EXPECT_THAT(elements(alias), ElementsAre(1.0, 2.0));
    EXPECT_NE(sum.data().data(), a.data().data());
}

TEST(Tensor, ComputesElementwiseArithmeticOnEqualShapes) {
    const Tensor<double> a({2, 2}, {1.0, 2.0, 3.0, 4.0});
    const Tensor<double> b({2, 2}, {0.5, -1.0, 2.0, 8.0});
    EXPECT_THAT(elements(a + b), ElementsAre(1.5, 1.0, 5.0, 12.0));
    EXPECT_THAT(elements(a - b), ElementsAre(0.5, 3.0, 1.0, -4.0));
    EXPECT_THAT(elements(a * b), ElementsAre(0.5, -2.0, 6.0, 32.0));
    EXPECT_THAT(elements(a / b), ElementsAre(2.0, -2.0, 1.5, 0.5));
    EXPECT_THAT(elements(-a), ElementsAre(-1.0, -2.0, -3.0, -4.0));
    EXPECT_EQ((a + b).shape(), (Shape{2, 2}));
}

TEST(Tensor, BroadcastsARankZeroOperandOnEitherSide) {
    const Tensor<float> w({2}, {1.0f, 3.0f});
    const Tensor<float> g({2}, {10.0f, -10.0f});
    const Tensor<float> stepped = w - g * Tensor<float>(0.5f);
    EXPECT_THAT(elements(stepped), ElementsAre(-4.0f, 8.0f));
    EXPECT_THAT(elements(Tensor<float>(1.0f) - w), ElementsAre(0.0f, -2.0f));
    EXPECT_THAT(elements(Tensor<float>(6.0f) / w), ElementsAre(6.0f, 2.0f));
    EXPECT_EQ((Tensor<float>(2.0f) * Tensor<float>(3.0f)).scalar(), 6.0f);
    EXPECT_EQ((Tensor<float>(2.0f) * w).shape(), (Shape{2}));
}

TEST(Tensor, ArithmeticWithMismatchedShapesThrowsShapeError) {
    const Tensor<double> a = Tensor<double>::filled({2, 3}, 1.0);
    const Tensor<double> b = Tensor<double>::filled({3, 2}, 1.0);
    EXPECT_THROW(a + b, ShapeError);
    EXPECT_THROW(a - b, ShapeError);
    EXPECT_THROW(a * b, ShapeError);
    EXPECT_THROW(a / b, ShapeError);
    // Aligned from the last axis, [2] meets the extent 3 of [2, 3].
    EXPECT_THROW(a * Tensor<double>::filled({2}, 2.0), ShapeError);
    try {
        (void)(a * b);
        FAIL();
    } catch (const ShapeError& error) {
        EXPECT_THAT(error.what(), HasSubstr("[2, 3]"));
        EXPECT_THAT(error.what(), HasSubstr("[3, 2]"));
    }
}

TEST(Tensor, ComparesByValue) {
    const Tensor<double> a({2}, {1.0, 2.0});
    EXPECT_EQ(a, (Tensor<double>({2}, {1.0, 2.0})));
    EXPECT_FALSE(a == (Tensor<double>({2}, {1.0, 2.5})));
    EXPECT_FALSE(a == (Tensor<double>({2, 1}, {1.0, 2.0})));
    EXPECT_EQ(Tensor<double>(0.0), Tensor<double>(-0.0));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(Tensor<double>(nan) == Tensor<double>(nan));
}

TEST(Tensor, BitEqualityDistinguishesSignedZerosAndMatchesNaNPayloads) {
    EXPECT_FALSE(Tensor<float>(0.0f).bit_equal(Tensor<float>(-0.0f)));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(Tensor<float>(nan).bit_equal(Tensor<float>(nan)));
    EXPECT_FALSE((Tensor<float>({2}, {1.0f, 2.0f})).bit_equal(Tensor<float>({1, 2}, {1.0f, 2.0f})));
    // The test helper agrees with the member.
    EXPECT_FALSE(test::bit_equal(Tensor<float>(0.0f), Tensor<float>(-0.0f)));
    EXPECT_TRUE(test::bit_equal(Tensor<float>(nan), Tensor<float>(nan)));
}

TEST(Tensor, PrintsFloatsWithTheShortestRoundTripDecimal) {
    const Tensor<float> t({2, 2}, {0.6397f, 0.75025934f, 1.2794f, 1.5005187f});
    EXPECT_EQ(printed(t), "[[0.6397, 0.75025934], [1.2794, 1.5005187]]");
    EXPECT_EQ(t.str(), printed(t));
    EXPECT_EQ(printed(Tensor<float>(0.1f)), "0.1");
}

TEST(Tensor, PrintsRankZeroAsABareNumber) {
    EXPECT_EQ(printed(Tensor<double>(9.0)), "9");
    EXPECT_EQ(printed(Tensor<float>(-12.0f)), "-12");
    EXPECT_EQ(printed(Tensor<double>(-0.0)), "-0");
}

TEST(Tensor, PrintsDoublesWithTheirOwnShortestRoundTrip) {
    EXPECT_EQ(printed(Tensor<double>(0.6397)), "0.6397");
    EXPECT_EQ(printed(Tensor<double>(0.6397000000000002)), "0.6397000000000002");
    EXPECT_EQ(printed(Tensor<double>(0.1 + 0.2)), "0.30000000000000004");
    // The float nearest 0.6397, widened, is not 0.6397 as a double.
    EXPECT_EQ(printed(Tensor<double>(static_cast<double>(0.6397f))), "0.6396999955177307");
}

TEST(Tensor, PrintsNestedBracketsForEveryRank) {
    EXPECT_EQ(printed(Tensor<double>({3}, {1, 2, 3})), "[1, 2, 3]");
    EXPECT_EQ(printed(Tensor<double>({1, 1}, {4})), "[[4]]");
    EXPECT_EQ(printed(Tensor<double>({2, 1, 2}, {1, 2, 3, 4})), "[[[1, 2]], [[3, 4]]]");
}

}  // namespace
}  // namespace topos
