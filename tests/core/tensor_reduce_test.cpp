// Tensor<T> reductions: sum and mean in the striped summation order, max and
// min, argmax and argmin with torch's rules for ties and NaN. Each is checked
// against a definition written out here: the striped order spelled lane by
// lane, extremes and first positions by plain loops over row-major indices.
#include "support/bit_equal.hpp"
#include "support/error_message.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;

template <class T>
class TensorReduce : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TensorReduce, Elements);

template <Element T>
T nan() {
    return std::numeric_limits<T>::quiet_NaN();
}

template <Element T>
T inf() {
    return std::numeric_limits<T>::infinity();
}

// Values of very different magnitudes, so that the order of additions shows.
template <Element T>
Tensor<T> mixed(Shape shape) {
    return Tensor<T>::generate(shape, [](std::span<T> out) {
        std::uint32_t state = 12345;
        for (std::size_t k = 0; k < out.size(); ++k) {
            state = state * 1664525u + 1013904223u;
            const int exponent = static_cast<int>(state >> 28) - 4;
            out[k] = std::ldexp(std::sin(static_cast<T>(k) * T{0.37} + T{0.1}), exponent);
        }
    });
}

// The documented order: sixteen running sums from -0, term a into sum a % 16,
// then sum l += sum l + 8, l + 4, l + 2, l + 1 in turn.
template <Element T>
T striped(const std::vector<T>& terms) {
    std::vector<T> lane(16, T{-0.0});
    for (std::size_t a = 0; a < terms.size(); ++a) {
        lane[a % 16] += terms[a];
    }
    for (std::size_t l = 0; l < 8; ++l) {
        lane[l] += lane[l + 8];
    }
    for (std::size_t l = 0; l < 4; ++l) {
        lane[l] += lane[l + 4];
    }
    lane[0] += lane[2];
    lane[1] += lane[3];
    lane[0] += lane[1];
    return lane[0];
}

// The terms along `axis` for output `out` of a reduction of a rank-3 tensor.
template <Element T>
std::vector<T> terms_along(const Tensor<T>& t, std::size_t axis, std::size_t i, std::size_t j) {
    std::vector<T> terms;
    for (std::size_t a = 0; a < t.shape()[axis]; ++a) {
        std::vector<std::size_t> q{i, j};
        q.insert(q.begin() + static_cast<std::ptrdiff_t>(axis), a);
        terms.push_back(t.at(q));
    }
    return terms;
}

// The first NaN, else the first position holding the extreme value.
template <Element T>
std::size_t first_position(const std::vector<T>& terms, bool largest) {
    for (std::size_t a = 0; a < terms.size(); ++a) {
        if (std::isnan(terms[a])) {
            return a;
        }
    }
    T extreme = terms[0];
    for (T term : terms) {
        extreme = largest ? std::fmax(extreme, term) : std::fmin(extreme, term);
    }
    std::size_t a = 0;
    while (terms[a] != extreme) {
        ++a;
    }
    return a;
}

using test::shape_error_of;

TYPED_TEST(TensorReduce, SumAddsAllElementsInTheStripedOrder) {
    using T = TypeParam;
    for (std::size_t count : {0, 1, 15, 16, 17, 100, 1001}) {
        const Tensor<T> t = mixed<T>({count});
        EXPECT_TRUE(test::bit_equal(Tensor<T>(t.sum()), Tensor<T>(striped(t.to_vector()))))
            << count << " elements";
    }
    // The order matters for these values: a plain ascending sum differs.
    const Tensor<T> t = mixed<T>({1001});
    T ascending = 0;
    for (T value : t.to_vector()) {
        ascending += value;
    }
    EXPECT_NE(t.sum(), ascending);
}

TYPED_TEST(TensorReduce, SumOfNoElementsIsNegativeZeroAndTheirMeanIsNaN) {
    using T = TypeParam;
    const Tensor<T> empty = Tensor<T>::filled({3, 0}, 1);
    EXPECT_EQ(empty.sum(), T{0});
    EXPECT_TRUE(std::signbit(empty.sum()));
    EXPECT_TRUE(std::isnan(empty.mean()));
    // A rank-0 sum is -0 + x, so +0 stays +0.
    EXPECT_FALSE(std::signbit(Tensor<T>(T{0}).sum()));
    EXPECT_EQ(Tensor<T>(T{2.5}).sum(), T{2.5});
}

TYPED_TEST(TensorReduce, MeanIsTheStripedSumOverTheElementCount) {
    using T = TypeParam;
    const Tensor<T> t = mixed<T>({7, 9});
    EXPECT_EQ(t.mean(), striped(t.to_vector()) / T{63});
    EXPECT_EQ((Tensor<T>({4}, {1, 2, 3, 6})).mean(), T{3});
}

TYPED_TEST(TensorReduce, SumAndMeanAlongAnAxisReduceEachLineInTheStripedOrder) {
    using T = TypeParam;
    const Tensor<T> t = mixed<T>({3, 17, 2});
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const Tensor<T> sums = t.sum(axis);
        const Tensor<T> means = t.mean(axis);
        const Shape out = t.shape().without_axis(axis);
        ASSERT_EQ(sums.shape(), out);
        ASSERT_EQ(means.shape(), out);
        for (std::size_t i = 0; i < out[0]; ++i) {
            for (std::size_t j = 0; j < out[1]; ++j) {
                const std::vector<T> terms = terms_along(t, axis, i, j);
                EXPECT_TRUE(test::bit_equal(Tensor<T>(sums(i, j)), Tensor<T>(striped(terms))));
                EXPECT_EQ(means(i, j), striped(terms) / static_cast<T>(terms.size()));
            }
        }
    }
}

TYPED_TEST(TensorReduce, SumAlongAnEmptyAxisIsNegativeZeroEverywhere) {
    using T = TypeParam;
    const Tensor<T> sums = Tensor<T>::filled({2, 0}, 1).sum(1);
    ASSERT_EQ(sums.shape(), Shape{2});
    EXPECT_TRUE(std::signbit(sums(0)) && sums(0) == T{0});
    EXPECT_TRUE(std::isnan(Tensor<T>::filled({2, 0}, 1).mean(1)(1)));
    EXPECT_EQ(Tensor<T>::filled({0, 4}, 1).sum(1).shape(), Shape{0});
}

TYPED_TEST(TensorReduce, MaxAndMinMatchAPlainScan) {
    using T = TypeParam;
    const Tensor<T> t = mixed<T>({50});
    T largest = -inf<T>();
    T smallest = inf<T>();
    for (T value : t.to_vector()) {
        largest = value > largest ? value : largest;
        smallest = value < smallest ? value : smallest;
    }
    EXPECT_EQ(t.max(), largest);
    EXPECT_EQ(t.min(), smallest);
    EXPECT_EQ(Tensor<T>(T{-4}).max(), T{-4});
    EXPECT_EQ((Tensor<T>({3}, {-inf<T>(), T{1}, inf<T>()})).max(), inf<T>());
    EXPECT_EQ((Tensor<T>({3}, {-inf<T>(), T{1}, inf<T>()})).min(), -inf<T>());
}

TYPED_TEST(TensorReduce, MaxAndMinPropagateNaN) {
    using T = TypeParam;
    const Tensor<T> t({4}, {T{1}, nan<T>(), T{-3}, inf<T>()});
    EXPECT_TRUE(std::isnan(t.max()));
    EXPECT_TRUE(std::isnan(t.min()));
}

TYPED_TEST(TensorReduce, MaxAndMinOfNoElementsAreRefused) {
    using T = TypeParam;
    const Tensor<T> empty = Tensor<T>::filled({2, 0}, 1);
    EXPECT_EQ(shape_error_of([&] { (void)empty.max(); }),
              "max() of a [2, 0] tensor: there are no elements, so it has no max");
    EXPECT_EQ(shape_error_of([&] { (void)empty.min(); }),
              "min() of a [2, 0] tensor: there are no elements, so it has no min");
}

// Small integers with ties, and NaNs in some lines.
template <Element T>
Tensor<T> ties_and_nans(Shape shape) {
    return Tensor<T>::generate(shape, [](std::span<T> out) {
        for (std::size_t k = 0; k < out.size(); ++k) {
            out[k] = (k * 7 + 3) % 11 == 0 ? nan<T>() : static_cast<T>((k * 5) % 4);
        }
    });
}

TYPED_TEST(TensorReduce, ArgmaxAndArgminAlongAnAxisGiveTheFirstExtremeOrTheFirstNaN) {
    using T = TypeParam;
    const Tensor<T> t = ties_and_nans<T>({4, 6, 5});
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const Tensor<T> high = t.argmax(axis);
        const Tensor<T> low = t.argmin(axis);
        const Shape out = t.shape().without_axis(axis);
        ASSERT_EQ(high.shape(), out);
        ASSERT_EQ(low.shape(), out);
        for (std::size_t i = 0; i < out[0]; ++i) {
            for (std::size_t j = 0; j < out[1]; ++j) {
                const std::vector<T> terms = terms_along(t, axis, i, j);
                EXPECT_EQ(high(i, j), static_cast<T>(first_position(terms, true)));
                EXPECT_EQ(low(i, j), static_cast<T>(first_position(terms, false)));
            }
        }
    }
}

TYPED_TEST(TensorReduce, ArgmaxAndArgminOverAllElementsGiveARankZeroFlatIndex) {
    using T = TypeParam;
    const Tensor<T> t = mixed<T>({6, 7});
    EXPECT_EQ(t.argmax().shape(), Shape{});
    EXPECT_EQ(t.argmax().item(), static_cast<T>(first_position(t.to_vector(), true)));
    EXPECT_EQ(t.argmin().item(), static_cast<T>(first_position(t.to_vector(), false)));
    const Tensor<T> with_nan({5}, {T{1}, inf<T>(), nan<T>(), -inf<T>(), nan<T>()});
    EXPECT_EQ(with_nan.argmax().item(), T{2});
    EXPECT_EQ(with_nan.argmin().item(), T{2});
    EXPECT_EQ((Tensor<T>({4}, {T{0}, T{-0.0}, T{3}, T{3}})).argmax().item(), T{2});
    EXPECT_EQ((Tensor<T>({2}, {T{-0.0}, T{0}})).argmin().item(), T{0});
    EXPECT_EQ(Tensor<T>(T{9}).argmax().item(), T{0});
}

TYPED_TEST(TensorReduce, ArgmaxAndArgminRefuseAnAxisWithNothingToChooseFrom) {
    using T = TypeParam;
    const Tensor<T> empty = Tensor<T>::filled({0, 3}, 1);
    EXPECT_EQ(shape_error_of([&] { (void)empty.argmax(0); }),
              "argmax over axis 0 of a [0, 3] tensor: there are no elements to choose from");
    EXPECT_EQ(shape_error_of([&] { (void)empty.argmin(); }),
              "argmin over all elements of a [0, 3] tensor: there are no elements to choose "
              "from");
    // Along a nonempty axis there is nothing to compute and nothing to refuse.
    EXPECT_EQ(empty.argmax(1).shape(), Shape{0});
    EXPECT_EQ(empty.argmin(1).shape(), Shape{0});
}

TYPED_TEST(TensorReduce, ReductionsRefuseAnAxisOutsideTheRank) {
    using T = TypeParam;
    const Tensor<T> t = mixed<T>({2, 3});
    EXPECT_EQ(shape_error_of([&] { (void)t.argmax(2); }),
              "argmax along axis 2 of a [2, 3] tensor: the axes are 0 to 1");
    EXPECT_THAT(shape_error_of([&] { (void)t.argmin(7); }), HasSubstr("argmin along axis 7"));
    EXPECT_THAT(shape_error_of([&] { (void)t.sum(2); }), HasSubstr("sum along axis 2"));
    EXPECT_THAT(shape_error_of([&] { (void)Tensor<T>(1).mean(0); }),
                HasSubstr("mean along axis 0 of a [] tensor"));
}

TEST(TensorReduce, ArgmaxRefusesPositionsAFloatCannotHoldExactly) {
    // Zero elements, so nothing is allocated: only the extent matters.
    const std::size_t exact = std::size_t{1} << 24;
    const Tensor<float> fits = Tensor<float>::filled({exact + 1, 0}, 1);
    EXPECT_EQ(fits.argmax(0).shape(), Shape{0});
    const Tensor<float> past = Tensor<float>::filled({exact + 2, 0}, 1);
    EXPECT_EQ(shape_error_of([&] { (void)past.argmax(0); }),
              "argmax over axis 0 of a [16777218, 0] tensor: the index 16777217 is not exactly "
              "representable in float; convert to double first");
    EXPECT_EQ(Tensor<double>::filled({exact + 2, 0}, 1).argmin(0).shape(), Shape{0});
}

}  // namespace
}  // namespace topos
