// Tensor<T> comparisons: 0/1 tensors for equal, not_equal, less, less_equal,
// greater and greater_equal, over every pair of a set of special values
// (signed zeros, infinities, NaN). The expected answers come from each value's
// rank in the order of the reals, with NaN unordered, not from C++'s operators.
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <concepts>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace topos {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <class T>
class TensorCompare : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TensorCompare, Elements);

enum class Relation {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual
};

template <Element T>
struct Special {
    T value;
    std::optional<int> rank;  // position in the order of the reals; none for NaN
};

template <Element T>
std::vector<Special<T>> specials() {
    const T inf = std::numeric_limits<T>::infinity();
    return {{-inf, 0},
            {T{-1.5}, 1},
            {T{-0.0}, 2},
            {T{0}, 2},
            {T{2}, 3},
            {inf, 4},
            {std::numeric_limits<T>::quiet_NaN(), std::nullopt}};
}

bool holds(Relation relation, std::optional<int> a, std::optional<int> b) {
    if (!a || !b) {
        return relation == Relation::NotEqual;
    }
    switch (relation) {
        case Relation::Equal:
            return *a == *b;
        case Relation::NotEqual:
            return *a != *b;
        case Relation::Less:
            return *a < *b;
        case Relation::LessEqual:
            return *a <= *b;
        case Relation::Greater:
            return *a > *b;
        case Relation::GreaterEqual:
            return *a >= *b;
    }
    return false;
}

template <Element T>
Tensor<T> apply(Relation relation, const Tensor<T>& a, const Tensor<T>& b) {
    switch (relation) {
        case Relation::Equal:
            return a.equal(b);
        case Relation::NotEqual:
            return a.not_equal(b);
        case Relation::Less:
            return a.less(b);
        case Relation::LessEqual:
            return a.less_equal(b);
        case Relation::Greater:
            return a.greater(b);
        case Relation::GreaterEqual:
            return a.greater_equal(b);
    }
    return a;
}

constexpr Relation relations[] = {Relation::Equal,
                                  Relation::NotEqual,
                                  Relation::Less,
                                  Relation::LessEqual,
                                  Relation::Greater,
                                  Relation::GreaterEqual};

TYPED_TEST(TensorCompare, EveryRelationGivesOneWhereItHoldsAndZeroElsewhere) {
    using T = TypeParam;
    const auto values = specials<T>();
    std::vector<T> left;
    std::vector<T> right;
    for (const auto& a : values) {
        for (const auto& b : values) {
            left.push_back(a.value);
            right.push_back(b.value);
        }
    }
    const std::size_t n = values.size();
    const Tensor<T> a(Shape{n, n}, left);
    const Tensor<T> b(Shape{n, n}, right);
    for (Relation relation : relations) {
        const Tensor<T> result = apply(relation, a, b);
        ASSERT_EQ(result.shape(), (Shape{n, n}));
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                const T expected = holds(relation, values[i].rank, values[j].rank) ? 1 : 0;
                EXPECT_EQ(result(i, j), expected)
                    << "relation " << static_cast<int>(relation) << " of " << left[i * n + j]
                    << " and " << right[i * n + j];
            }
        }
    }
}

TYPED_TEST(TensorCompare, ARankZeroOperandBroadcastsOnEitherSide) {
    using T = TypeParam;
    const Tensor<T> t({2, 2}, {T{1}, T{2}, T{3}, T{4}});
    EXPECT_THAT(t.less(Tensor<T>(T{3})).to_vector(), ElementsAre(1, 1, 0, 0));
    EXPECT_THAT(Tensor<T>(T{3}).less(t).to_vector(), ElementsAre(0, 0, 0, 1));
    EXPECT_EQ(Tensor<T>(T{3}).less(t).shape(), (Shape{2, 2}));
    EXPECT_EQ(Tensor<T>(T{1}).equal(Tensor<T>(T{1})), Tensor<T>(T{1}));
}

TYPED_TEST(TensorCompare, APlainNumberComparesAsARankZeroTensor) {
    using T = TypeParam;
    const Tensor<T> t({3}, {T{-1}, T{0}, T{1}});
    EXPECT_THAT(t.greater_equal(T{0}).to_vector(), ElementsAre(0, 1, 1));
    EXPECT_THAT(t.not_equal(0).to_vector(), ElementsAre(1, 0, 1));
    EXPECT_THAT(t.less_equal(0.5).to_vector(), ElementsAre(1, 1, 0));
}

TYPED_TEST(TensorCompare, EmptyTensorsCompareToEmptyResults) {
    using T = TypeParam;
    const Tensor<T> empty = Tensor<T>::filled({0, 3}, 1);
    EXPECT_EQ(empty.equal(T{1}).shape(), (Shape{0, 3}));
    EXPECT_EQ(empty.less(empty).shape(), (Shape{0, 3}));
}

TYPED_TEST(TensorCompare, RefusesShapesThatArithmeticRefusesNamingBoth) {
    using T = TypeParam;
    const Tensor<T> a = Tensor<T>::filled({2, 3}, 1);
    const Tensor<T> b = Tensor<T>::filled({3, 2}, 1);
    try {
        (void)a.greater(b);
        FAIL() << "compared [2, 3] with [3, 2]";
    } catch (const ShapeError& error) {
        EXPECT_STREQ(error.what(),
                     "tensor comparison greater of [2, 3] and [3, 2]: the shapes do not "
                     "broadcast (axis 0 of the result: 2 vs 3); aligned from the last axis, "
                     "extents must be equal or 1");
    }
    // As in arithmetic, shapes broadcast from the last axis: [2] meets 3.
    EXPECT_THROW((void)a.equal(Tensor<T>::filled({2}, 1)), ShapeError);
    EXPECT_THROW((void)a.not_equal(b), ShapeError);
    EXPECT_THROW((void)a.less(b), ShapeError);
    EXPECT_THROW((void)a.less_equal(b), ShapeError);
    EXPECT_THROW((void)a.greater_equal(b), ShapeError);
    EXPECT_THROW((void)Tensor<T>::filled({0}, 1).equal(Tensor<T>::filled({2}, 1)), ShapeError);
}

TYPED_TEST(TensorCompare, OperatorEqualsStillComparesWholeTensors) {
    using T = TypeParam;
    const Tensor<T> a({2}, {T{1}, T{2}});
    static_assert(std::same_as<decltype(a == a), bool>);
    EXPECT_TRUE(a == (Tensor<T>({2}, {T{1}, T{2}})));
    EXPECT_FALSE(a == (Tensor<T>({2}, {T{1}, T{3}})));
}

TYPED_TEST(TensorCompare, CountsAgreementsAsAnAccuracy) {
    using T = TypeParam;
    const Tensor<T> scores({3, 2}, {T{0.1}, T{0.9}, T{0.8}, T{0.2}, T{0.3}, T{0.7}});
    const Tensor<T> labels({3}, {T{1}, T{1}, T{1}});
    EXPECT_EQ(scores.argmax(1).equal(labels).mean(), T{2} / T{3});
}

}  // namespace
}  // namespace topos
