// Tensor<T> reductions along axes with keepdim, as torch's: sum, mean, var,
// std, max, min, argmax and argmin. Sums, means, extremes and variances are
// checked bit for bit against the same reductions recorded on a Tape, the
// variance also against a long double reference and against torch's values
// worked out by hand, and standardising a table reads as one expression.
#include "support/bit_equal.hpp"
#include "support/error_message.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace topos::statistics_test {
namespace {

using test::shape_error_of;
using ::testing::HasSubstr;

template <class T>
class TensorStatistics : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TensorStatistics, Elements);

// Values of mixed signs and magnitudes, so that summation order shows in the bits.
template <Element T>
Tensor<T> mixed(const Shape& shape, std::size_t seed) {
    return Tensor<T>::generate(shape, [seed](std::span<T> out) {
        for (std::size_t k = 0; k < out.size(); ++k) {
            const double wave = std::sin(0.7 * static_cast<double>(k + seed * 31) + 0.3);
            out[k] = static_cast<T>(wave * std::pow(3.0, static_cast<double>((k * 7) % 5)) + 2.5);
        }
    });
}

template <Element T>
T nan() {
    return std::numeric_limits<T>::quiet_NaN();
}

struct AxesCase {
    Shape shape;
    std::vector<std::size_t> axes;
};

const std::vector<AxesCase>& axes_cases() {
    static const std::vector<AxesCase> cases = {
        {{8, 30}, {0}},
        {{8, 30}, {1}},
        {{8, 30}, {0, 1}},
        {{37}, {0}},
        {{5, 7, 3}, {0, 2}},
        {{5, 7, 3}, {2, 1}},
        {{2, 3, 4, 5}, {1, 3}},
        {{4, 1, 6}, {1}},
        {{3, 0, 2}, {2}},
    };
    return cases;
}

template <Element T>
Tensor<T> recorded(const Tensor<T>& x, const std::function<Value<T>(const Value<T>&)>& record) {
    Tape<T> tape;
    const Symbol result = record(tape.parameter(x)).symbol();
    const Network<T> network = std::move(tape).into_network();
    return network.forward(network.parameters()).of(result);
}

TYPED_TEST(TensorStatistics, GivesTheRecordedGraphsBitsAlongAxesWithAndWithoutKeepdim) {
    using T = TypeParam;
    for (const AxesCase& c : axes_cases()) {
        const Tensor<T> x = mixed<T>(c.shape, c.axes.size());
        const Axes axes(c.axes);
        const std::span<const std::size_t> list(c.axes);
        for (const bool keep : {false, true}) {
            SCOPED_TRACE(c.shape.str() + " over " + std::to_string(c.axes.size()) +
                         " axes, keepdim " + (keep ? "true" : "false"));
            EXPECT_TRUE(test::bit_equal(x.sum(list, keep), recorded<T>(x, [&](const Value<T>& v) {
                                            return v.sum(axes, keep);
                                        })));
            EXPECT_TRUE(test::bit_equal(x.mean(list, keep), recorded<T>(x, [&](const Value<T>& v) {
                                            return v.mean(axes, keep);
                                        })));
            // var: the documented composition, recorded.
            std::size_t n = 1;
            for (std::size_t axis : c.axes) {
                n *= c.shape[axis];
            }
            const T divisor = static_cast<T>(n > 1 ? n - 1 : 0);
            EXPECT_TRUE(test::bit_equal(x.var(list, keep), recorded<T>(x, [&](const Value<T>& v) {
                                            const Value<T> d = v - v.mean(axes, true);
                                            return (d * d).sum(axes, keep) / divisor;
                                        })));
            EXPECT_TRUE(test::bit_equal(x.std(list, keep), recorded<T>(x, [&](const Value<T>& v) {
                                            const Value<T> d = v - v.mean(axes, true);
                                            return ((d * d).sum(axes, keep) / divisor).sqrt();
                                        })));
            if (x.elements() != 0) {
                EXPECT_TRUE(test::bit_equal(
                    x.max(list, keep),
                    recorded<T>(x, [&](const Value<T>& v) { return v.max(axes, keep); })));
                EXPECT_TRUE(test::bit_equal(
                    x.min(list, keep),
                    recorded<T>(x, [&](const Value<T>& v) { return -(-v).max(axes, keep); })));
            }
            if (c.axes.size() == 1) {
                const std::size_t axis = c.axes[0];
                EXPECT_TRUE(test::bit_equal(x.sum(axis, keep), x.sum(list, keep)));
                EXPECT_TRUE(test::bit_equal(x.mean(axis, keep), x.mean(list, keep)));
                EXPECT_TRUE(test::bit_equal(x.var(axis, keep), x.var(list, keep)));
                EXPECT_TRUE(test::bit_equal(x.std(axis, keep), x.std(list, keep)));
            }
        }
    }
}

TYPED_TEST(TensorStatistics, KeepdimLeavesEachReducedAxisWithExtentOne) {
    using T = TypeParam;
    const Tensor<T> x = mixed<T>({2, 3, 4}, 0);
    EXPECT_EQ(x.sum(1, true).shape(), (Shape{2, 1, 4}));
    EXPECT_EQ(x.mean(0, true).shape(), (Shape{1, 3, 4}));
    EXPECT_EQ(x.var(2, true).shape(), (Shape{2, 3, 1}));
    EXPECT_EQ(x.std({0, 2}, true).shape(), (Shape{1, 3, 1}));
    EXPECT_EQ(x.max(1, true).shape(), (Shape{2, 1, 4}));
    EXPECT_EQ(x.min({2, 1, 0}, true).shape(), (Shape{1, 1, 1}));
    EXPECT_EQ(x.argmax(2, true).shape(), (Shape{2, 3, 1}));
    EXPECT_EQ(x.argmin(0, true).shape(), (Shape{1, 3, 4}));
    // Without keepdim the axes go, as before.
    EXPECT_EQ(x.sum(1).shape(), (Shape{2, 4}));
    EXPECT_EQ(x.mean({0, 2}).shape(), (Shape{3}));
    EXPECT_EQ(x.argmax(2).shape(), (Shape{2, 3}));
    EXPECT_EQ(x.max({0, 1, 2}).shape(), Shape{});
    // The kept result holds the same elements as the removed one.
    EXPECT_TRUE(test::bit_equal(x.mean(1, true).reshape({2, 4}), x.mean(1)));
    EXPECT_TRUE(test::bit_equal(x.argmin(1, true).reshape({2, 4}), x.argmin(1)));
}

TYPED_TEST(TensorStatistics, ReducesExtremesAndTheirPositionsAlongAnAxis) {
    using T = TypeParam;
    const Tensor<T> x({2, 3}, {T{4}, T{-1}, T{9}, T{2}, T{7}, T{-3}});
    EXPECT_EQ(x.max(0), (Tensor<T>({3}, {T{4}, T{7}, T{9}})));
    EXPECT_EQ(x.min(1, true), (Tensor<T>({2, 1}, {T{-1}, T{-3}})));
    EXPECT_EQ(x.argmax(1, true), (Tensor<T>({2, 1}, {T{2}, T{1}})));
    EXPECT_EQ(x.argmin(0), (Tensor<T>({3}, {T{1}, T{0}, T{1}})));
    EXPECT_EQ(x.max({0, 1}).item(), T{9});
    const Tensor<T> with_nan({3}, {T{1}, nan<T>(), T{5}});
    EXPECT_TRUE(std::isnan(with_nan.max(0).item()));
    EXPECT_TRUE(std::isnan(with_nan.min(0, true).item()));
}

// torch.tensor([[1., 2.], [3., 5.]]): var(0) = [2.0, 4.5], var(1) = [0.5,
// 2.0], var() = 8.75 / 3, var(0, correction=0) = [1.0, 2.25], std(0) =
// [sqrt(2), sqrt(4.5)]; a column of one element gives nan (0 / 0), and
// correction=2 over two rows gives inf (divisor max(0, 2 - 2)).
TYPED_TEST(TensorStatistics, VarianceAndStdAreTorchsOnASmallTable) {
    using T = TypeParam;
    const Tensor<T> x({2, 2}, {T{1}, T{2}, T{3}, T{5}});
    EXPECT_EQ(x.var(0), (Tensor<T>({2}, {T{2}, T{4.5}})));
    EXPECT_EQ(x.var(1, true), (Tensor<T>({2, 1}, {T{0.5}, T{2}})));
    EXPECT_EQ(x.var(), T{8.75} / T{3});
    EXPECT_EQ(x.var({0, 1}).item(), T{8.75} / T{3});
    EXPECT_EQ(x.var(0, false, 0), (Tensor<T>({2}, {T{1}, T{2.25}})));
    EXPECT_EQ(x.std(0), (Tensor<T>({2}, {std::sqrt(T{2}), std::sqrt(T{4.5})})));
    EXPECT_EQ(x.std(), std::sqrt(T{8.75} / T{3}));
    const Tensor<T> one_row({1, 2}, {T{7}, T{8}});
    const Tensor<T> lone = one_row.var(0);
    EXPECT_TRUE(std::isnan(lone(0)) && std::isnan(lone(1)));
    EXPECT_TRUE(std::isnan(one_row.std(0, true)(0, 1)));
    EXPECT_EQ(one_row.var(0, false, 0), (Tensor<T>({2}, {T{0}, T{0}})));
    const T inf = std::numeric_limits<T>::infinity();
    EXPECT_EQ(x.var(0, false, 2), (Tensor<T>({2}, {inf, inf})));
    EXPECT_TRUE(std::isnan(Tensor<T>(T{3}).var()));
}

TYPED_TEST(TensorStatistics, VarianceAgreesWithALongDoubleReference) {
    using T = TypeParam;
    const T tolerance = std::same_as<T, float> ? T{2e-6} : T{4e-15};
    const Tensor<T> x = mixed<T>({8, 30}, 5);
    for (const std::size_t axis : {std::size_t{0}, std::size_t{1}}) {
        const std::size_t other = 1 - axis;
        const Tensor<T> var = x.var(axis);
        const Tensor<T> population = x.var(axis, false, 0);
        for (std::size_t j = 0; j < x.shape()[other]; ++j) {
            const std::size_t n = x.shape()[axis];
            auto at = [&](std::size_t i) {
                return static_cast<long double>(axis == 0 ? x(i, j) : x(j, i));
            };
            long double mean = 0;
            for (std::size_t i = 0; i < n; ++i) {
                mean += at(i);
            }
            mean /= static_cast<long double>(n);
            long double squares = 0;
            for (std::size_t i = 0; i < n; ++i) {
                squares += (at(i) - mean) * (at(i) - mean);
            }
            const long double expected = squares / static_cast<long double>(n - 1);
            EXPECT_NEAR(var(j), expected, tolerance * expected) << "axis " << axis << ", " << j;
            const long double expected_population = squares / static_cast<long double>(n);
            EXPECT_NEAR(population(j), expected_population, tolerance * expected_population);
        }
    }
}

TYPED_TEST(TensorStatistics, StandardisesATableInOneExpression) {
    using T = TypeParam;
    const T tolerance = std::same_as<T, float> ? T{4e-6} : T{1e-14};
    const std::size_t rows = 8;
    const std::size_t columns = 30;
    const Tensor<T> x = mixed<T>({rows, columns}, 9);

    const Tensor<T> z = (x - x.mean(0, true)) / x.std(0, true);

    ASSERT_EQ(z.shape(), (Shape{rows, columns}));
    for (std::size_t j = 0; j < columns; ++j) {
        long double mean = 0;
        for (std::size_t i = 0; i < rows; ++i) {
            mean += x(i, j);
        }
        mean /= rows;
        long double squares = 0;
        for (std::size_t i = 0; i < rows; ++i) {
            squares += (x(i, j) - mean) * (x(i, j) - mean);
        }
        const long double deviation = std::sqrt(squares / (rows - 1));
        long double z_mean = 0;
        long double z_squares = 0;
        for (std::size_t i = 0; i < rows; ++i) {
            EXPECT_NEAR(z(i, j), (x(i, j) - mean) / deviation, tolerance) << i << ", " << j;
            z_mean += z(i, j);
            z_squares += static_cast<long double>(z(i, j)) * z(i, j);
        }
        z_mean /= rows;
        EXPECT_NEAR(z_mean, 0.0L, tolerance) << "column " << j;
        EXPECT_NEAR(std::sqrt((z_squares - rows * z_mean * z_mean) / (rows - 1)), 1.0L, tolerance)
            << "column " << j;
    }
}

TYPED_TEST(TensorStatistics, AnEmptyAxisFollowsTheRulesOfAnEmptySum) {
    using T = TypeParam;
    const Tensor<T> empty = Tensor<T>::filled({0, 3}, 1);
    const Tensor<T> sum = empty.sum(0, true);
    EXPECT_EQ(sum.shape(), (Shape{1, 3}));
    EXPECT_TRUE(test::bit_equal(sum, Tensor<T>::filled({1, 3}, T{-0.0})));
    for (const Tensor<T>& nan_result : {empty.mean(0), empty.var(0, true), empty.std({0})}) {
        ASSERT_EQ(nan_result.elements(), 3u);
        EXPECT_TRUE(std::isnan(nan_result.data()[0]));
    }
    EXPECT_EQ(shape_error_of([&] { (void)empty.max(0, true); }),
              "max over axis 0 of a [0, 3] tensor: the axis has no elements, so it has no max");
    EXPECT_EQ(shape_error_of([&] {
                  (void)empty.min({0, 1});
              }),
              "min over axis 0 of a [0, 3] tensor: the axis has no elements, so it has no min");
    EXPECT_THAT(shape_error_of([&] { (void)empty.argmax(0, true); }),
                HasSubstr("there are no elements to choose from"));
    // Along the other axis there are no results to compute, and nothing is refused
    // but the max of nothing.
    EXPECT_EQ(empty.var(1).shape(), (Shape{0}));
    EXPECT_EQ(empty.sum(1, true).shape(), (Shape{0, 1}));
}

TYPED_TEST(TensorStatistics, RefusesAxesOutsideTheRankNamedTwiceOrNone) {
    using T = TypeParam;
    const Tensor<T> x = Tensor<T>::filled({2, 3}, 1);
    EXPECT_EQ(shape_error_of([&] { (void)x.var(2, true); }),
              "var over axes [2] of a [2, 3] tensor: axis 2 is outside the rank; the axes are 0 "
              "to 1");
    EXPECT_EQ(shape_error_of([&] { (void)x.max(5, true); }),
              "max along axis 5 of a [2, 3] tensor: the axes are 0 to 1");
    EXPECT_EQ(shape_error_of([&] { (void)x.mean(2, true); }),
              "mean along axis 2 of a [2, 3] tensor: the axes are 0 to 1");
    EXPECT_EQ(shape_error_of([&] { (void)x.argmin(2, true); }),
              "argmin along axis 2 of a [2, 3] tensor: the axes are 0 to 1");
    EXPECT_EQ(shape_error_of([&] {
                  (void)x.sum({1, 0, 1});
              }),
              "sum over axes [1, 0, 1] of a [2, 3] tensor: axis 1 is named twice; name each "
              "axis at most once");
    EXPECT_EQ(shape_error_of([&] { (void)x.std({}, true); }),
              "std over axes [] of a [2, 3] tensor: name at least one axis (sum() and mean() "
              "reduce all of them)");
    EXPECT_EQ(shape_error_of([&] { (void)Tensor<T>(1).min(0); }),
              "min along axis 0 of a [] tensor: the axes are 0 to none (rank 0)");
}

}  // namespace
}  // namespace topos::statistics_test
