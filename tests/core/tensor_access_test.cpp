// Tensor<T> read by position: t(i, j), t.at({i, j}), narrow, slice, select,
// reshape, flatten, item, to_vector and convert. Expected values come from
// row-major index arithmetic written out here, never from the methods tested.
#include "support/error_message.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace topos {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Element k holds k + 1, so every element is distinct and nonzero.
template <Element T>
Tensor<T> counting(Shape shape) {
    return Tensor<T>::generate(shape, [](std::span<T> out) {
        for (std::size_t k = 0; k < out.size(); ++k) {
            out[k] = static_cast<T>(k + 1);
        }
    });
}

using test::index_error_of;
using test::shape_error_of;

template <class T>
class TensorAccess : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TensorAccess, Elements);

// A bool index is refused at compile time; every other integer type is taken.
static_assert(!std::invocable<const Tensor<float>&, bool, int>);
static_assert(std::invocable<const Tensor<float>&, int, long>);
static_assert(std::invocable<const Tensor<double>&, std::size_t, unsigned char, std::int64_t>);

TYPED_TEST(TensorAccess, ReadsEveryElementByOneIndexPerAxisInRowMajorOrder) {
    using T = TypeParam;
    const Tensor<T> t = counting<T>({2, 3, 4});
    for (int i = 0; i < 2; ++i) {
        for (long j = 0; j < 3; ++j) {
            for (std::size_t k = 0; k < 4; ++k) {
                const T expected = static_cast<T>((i * 3 + j) * 4 + static_cast<long>(k) + 1);
                EXPECT_EQ(t(i, j, k), expected);
                EXPECT_EQ(t.at({static_cast<std::size_t>(i), static_cast<std::size_t>(j), k}),
                          expected);
            }
        }
    }
    const std::vector<std::size_t> position{1, 2, 3};
    EXPECT_EQ(t.at(position), T{24});
    const int i = 1;
    const int j = 2;
    EXPECT_EQ(t.at({i, j, 0}), T{21});  // a list of ints needs no casts
}

TYPED_TEST(TensorAccess, ReadsARankZeroTensorWithNoIndices) {
    using T = TypeParam;
    const Tensor<T> t(T{2.5});
    EXPECT_EQ(t(), T{2.5});
    EXPECT_EQ(t.at({}), T{2.5});
    EXPECT_EQ(t.item(), T{2.5});
}

TYPED_TEST(TensorAccess, RefusesAnIndexOutsideItsAxisNamingIndexAxisAndShape) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 3});
    EXPECT_EQ(index_error_of([&] { (void)t(1, 5); }),
              "index 5 on axis 1 of a [2, 3] tensor is outside [0, 3)");
    EXPECT_EQ(index_error_of([&] {
                  (void)t.at({2, 0});
              }),
              "index 2 on axis 0 of a [2, 3] tensor is outside [0, 2)");
}

TYPED_TEST(TensorAccess, RefusesANegativeIndexQuotingItAsGiven) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 3});
    EXPECT_EQ(index_error_of([&] { (void)t(-1, 0); }),
              "index -1 on axis 0 of a [2, 3] tensor is outside [0, 2)");
    EXPECT_EQ(index_error_of([&] { (void)t(0, std::int64_t{-7}); }),
              "index -7 on axis 1 of a [2, 3] tensor is outside [0, 3)");
    const int minus_two = -2;
    EXPECT_EQ(index_error_of([&] {
                  (void)t.at({1, minus_two});
              }),
              "index -2 on axis 1 of a [2, 3] tensor is outside [0, 3)");
    EXPECT_EQ(index_error_of([&] {
                  (void)t.at({1, 2, 3});
              }),
              "a [2, 3] tensor takes 2 indices, one per axis, but 3 were given");
}

TYPED_TEST(TensorAccess, RefusesAnIndexCountOtherThanTheRank) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 3});
    EXPECT_EQ(index_error_of([&] { (void)t(1); }),
              "a [2, 3] tensor takes 2 indices, one per axis, but 1 was given");
    EXPECT_EQ(index_error_of([&] {
                  (void)t.at({0, 0, 0});
              }),
              "a [2, 3] tensor takes 2 indices, one per axis, but 3 were given");
    EXPECT_EQ(index_error_of([&] { (void)Tensor<TypeParam>(1)(0); }),
              "a [] tensor takes 0 indices, one per axis, but 1 was given");
    EXPECT_THAT(index_error_of([&] { (void)t(); }), HasSubstr("but 0 were given"));
    EXPECT_EQ(index_error_of([&] { (void)counting<TypeParam>({4})(1, 2); }),
              "a [4] tensor takes 1 index, one per axis, but 2 were given");
}

TYPED_TEST(TensorAccess, HasNoElementToReadAlongAnEmptyAxis) {
    const Tensor<TypeParam> empty = Tensor<TypeParam>::filled({0, 3}, 1);
    EXPECT_EQ(index_error_of([&] { (void)empty(0, 0); }),
              "index 0 on axis 0 of a [0, 3] tensor is outside [0, 0)");
}

// Reads element `position` of `t` with `axis` moved to `moved`.
template <Element T>
T moved_element(const Tensor<T>& t,
                std::vector<std::size_t> position,
                std::size_t axis,
                std::size_t moved) {
    position[axis] = moved;
    return t.at(position);
}

// Every element of `result` at position q equals t at q with q[axis] mapped.
template <Element T, class Map>
void expect_positions_mapped(const Tensor<T>& t,
                             const Tensor<T>& result,
                             std::size_t axis,
                             Map map) {
    const Shape& shape = result.shape();
    std::vector<std::size_t> q(shape.rank(), 0);
    for (std::size_t flat = 0; flat < result.elements(); ++flat) {
        std::size_t rest = flat;
        for (std::size_t a = shape.rank(); a-- > 0;) {
            q[a] = rest % shape[a];
            rest /= shape[a];
        }
        ASSERT_EQ(result.data()[flat], moved_element(t, q, axis, map(q[axis])))
            << "at flat " << flat << " along axis " << axis;
    }
}

TYPED_TEST(TensorAccess, NarrowKeepsLengthPositionsFromStartOfEveryAxis) {
    const Tensor<TypeParam> t = counting<TypeParam>({3, 4, 2});
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const std::size_t extent = t.shape()[axis];
        for (std::size_t start = 0; start <= extent; ++start) {
            for (std::size_t length = 0; start + length <= extent; ++length) {
                const Tensor<TypeParam> n = t.narrow(axis, start, length);
                ASSERT_EQ(n.shape(), t.shape().with_extent(axis, length));
                expect_positions_mapped(t, n, axis, [start](std::size_t p) { return start + p; });
            }
        }
    }
}

TYPED_TEST(TensorAccess, SliceKeepsStartThenEveryStepthPositionBelowStop) {
    const Tensor<TypeParam> t = counting<TypeParam>({5, 3, 7});
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const std::size_t extent = t.shape()[axis];
        for (std::size_t start = 0; start <= extent; ++start) {
            for (std::size_t stop = 0; stop <= extent; ++stop) {
                for (std::size_t step = 1; step <= extent + 1; ++step) {
                    std::vector<std::size_t> positions;
                    for (std::size_t p = start; p < stop; p += step) {
                        positions.push_back(p);
                    }
                    const Tensor<TypeParam> s = t.slice(axis, start, stop, step);
                    ASSERT_EQ(s.shape(), t.shape().with_extent(axis, positions.size()));
                    expect_positions_mapped(
                        t, s, axis, [&positions](std::size_t p) { return positions[p]; });
                }
            }
        }
    }
    EXPECT_EQ(t.slice(2, 1, 4), t.narrow(2, 1, 3));  // step defaults to 1
}

TYPED_TEST(TensorAccess, SelectRemovesTheAxisKeepingOnePosition) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 3, 4});
    for (std::size_t axis = 0; axis < 3; ++axis) {
        for (std::size_t index = 0; index < t.shape()[axis]; ++index) {
            const Tensor<TypeParam> s = t.select(axis, index);
            ASSERT_EQ(s.shape(), t.shape().without_axis(axis));
            std::vector<std::size_t> q(2, 0);
            for (q[0] = 0; q[0] < s.shape()[0]; ++q[0]) {
                for (q[1] = 0; q[1] < s.shape()[1]; ++q[1]) {
                    std::vector<std::size_t> full = q;
                    full.insert(full.begin() + static_cast<std::ptrdiff_t>(axis), index);
                    ASSERT_EQ(s.at(q), t.at(full));
                }
            }
        }
    }
    EXPECT_EQ(counting<TypeParam>({3}).select(0, 1), Tensor<TypeParam>(2));  // to rank 0
}

TYPED_TEST(TensorAccess, LayoutMethodsKeepEmptyAxesEmpty) {
    using T = TypeParam;
    const Tensor<T> t = counting<T>({2, 3});
    EXPECT_EQ(t.narrow(1, 3, 0).shape(), (Shape{2, 0}));
    EXPECT_EQ(t.slice(0, 2, 1).shape(), (Shape{0, 3}));
    const Tensor<T> empty = Tensor<T>::filled({2, 0}, 1);
    EXPECT_EQ(empty.select(0, 1).shape(), (Shape{0}));
    EXPECT_EQ(empty.slice(1, 0, 0).shape(), (Shape{2, 0}));
    EXPECT_EQ(empty.narrow(0, 1, 1).shape(), (Shape{1, 0}));
}

TYPED_TEST(TensorAccess, LayoutMethodsRefuseAnAxisOutsideTheRank) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 3});
    EXPECT_EQ(shape_error_of([&] { (void)t.narrow(2, 0, 1); }),
              "narrow along axis 2 of a [2, 3] tensor: the axes are 0 to 1");
    EXPECT_EQ(shape_error_of([&] { (void)t.slice(5, 0, 1); }),
              "slice along axis 5 of a [2, 3] tensor: the axes are 0 to 1");
    EXPECT_EQ(shape_error_of([&] { (void)Tensor<TypeParam>(1).select(0, 0); }),
              "select along axis 0 of a [] tensor: the axes are 0 to none (rank 0)");
}

TYPED_TEST(TensorAccess, LayoutMethodsRefusePositionsPastTheAxis) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 5});
    EXPECT_EQ(index_error_of([&] { (void)t.narrow(1, 2, 4); }),
              "narrow(axis 1, start 2, length 4) of a [2, 5] tensor reaches past the axis: "
              "start + length must be at most its extent 5");
    EXPECT_THAT(index_error_of([&] { (void)t.narrow(1, 6, 0); }), HasSubstr("start 6"));
    EXPECT_EQ(index_error_of([&] { (void)t.slice(1, 0, 6, 2); }),
              "slice(axis 1, start 0, stop 6) of a [2, 5] tensor reaches past the axis: start "
              "and stop must be at most its extent 5");
    EXPECT_THAT(index_error_of([&] { (void)t.slice(0, 3, 1); }), HasSubstr("start 3"));
    EXPECT_EQ(index_error_of([&] { (void)t.select(0, 2); }),
              "select: index 2 on axis 0 of a [2, 5] tensor is outside [0, 2)");
    EXPECT_EQ(shape_error_of([&] { (void)t.slice(1, 0, 5, 0); }),
              "slice along axis 1 of a [2, 5] tensor: the step must be at least 1, got 0");
}

TYPED_TEST(TensorAccess, ReshapeAndFlattenKeepTheElementsAndShareTheBuffer) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 3});
    const Tensor<TypeParam> r = t.reshape({3, 1, 2});
    EXPECT_EQ(r.shape(), (Shape{3, 1, 2}));
    EXPECT_EQ(r.to_vector(), t.to_vector());
    EXPECT_EQ(r.data().data(), t.data().data());
    EXPECT_EQ(t.flatten().shape(), Shape{6});
    EXPECT_EQ(t.flatten().to_vector(), t.to_vector());
    EXPECT_EQ(Tensor<TypeParam>(4).flatten(), (Tensor<TypeParam>({1}, {4})));
    EXPECT_EQ(Tensor<TypeParam>::filled({0, 3}, 1).flatten().shape(), Shape{0});
    EXPECT_EQ(Tensor<TypeParam>::filled({0, 3}, 1).reshape({3, 0, 5}).shape(), (Shape{3, 0, 5}));
}

TYPED_TEST(TensorAccess, ReshapeRefusesAnotherElementCountNamingBothShapes) {
    const Tensor<TypeParam> t = counting<TypeParam>({2, 3});
    EXPECT_EQ(shape_error_of([&] {
                  (void)t.reshape({4, 2});
              }),
              "reshape of a [2, 3] tensor (6 elements) to [4, 2] (8 elements): the element "
              "counts must agree");
}

TYPED_TEST(TensorAccess, ItemReadsTheOneElementLikeScalar) {
    using T = TypeParam;
    EXPECT_EQ((Tensor<T>({1, 1, 1}, {T{-3}})).item(), T{-3});
    EXPECT_THROW((void)counting<T>({2}).item(), ShapeError);
    EXPECT_THROW((void)Tensor<T>::filled({0}, 1).item(), ShapeError);
}

TYPED_TEST(TensorAccess, ToVectorCopiesTheRowMajorElements) {
    using T = TypeParam;
    const Tensor<T> t = counting<T>({2, 2});
    std::vector<T> copy = t.to_vector();
    EXPECT_THAT(copy, ElementsAre(T{1}, T{2}, T{3}, T{4}));
    EXPECT_NE(copy.data(), t.data().data());
    EXPECT_TRUE(Tensor<T>::filled({3, 0}, 1).to_vector().empty());
}

// The float nearest to `wide`: no neighbour of the result is closer.
void expect_nearest_float(double wide, float narrowed) {
    const double below = std::nextafter(narrowed, -std::numeric_limits<float>::infinity());
    const double above = std::nextafter(narrowed, std::numeric_limits<float>::infinity());
    EXPECT_LE(std::abs(narrowed - wide), std::abs(below - wide)) << wide;
    EXPECT_LE(std::abs(narrowed - wide), std::abs(above - wide)) << wide;
}

TEST(TensorConvert, RoundsEachDoubleToTheNearestFloat) {
    const std::vector<double> values{0.1, -2.0 / 3.0, 1e-40, 3.4028234e38, 123456789.123};
    const Tensor<double> t(Shape{5}, values);
    const Tensor<float> f = t.convert<float>();
    ASSERT_EQ(f.shape(), Shape{5});
    for (std::size_t k = 0; k < values.size(); ++k) {
        expect_nearest_float(values[k], f.data()[k]);
    }
    // Halfway between 1 and the next float: ties go to the even neighbour, 1.
    EXPECT_EQ(Tensor<double>(1.0 + std::ldexp(1.0, -24)).convert<float>().item(), 1.0f);
}

TEST(TensorConvert, KeepsInfinitiesNaNAndOverflowsToInfinity) {
    const double inf = std::numeric_limits<double>::infinity();
    const Tensor<float> f = Tensor<double>({4}, {inf, -inf, std::nan(""), 1e300}).convert<float>();
    EXPECT_EQ(f.data()[0], std::numeric_limits<float>::infinity());
    EXPECT_EQ(f.data()[1], -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(f.data()[2]));
    EXPECT_EQ(f.data()[3], std::numeric_limits<float>::infinity());
}

TEST(TensorConvert, WidensFloatsExactlyAndKeepsTheShape) {
    const Tensor<float> f({2, 0}, std::vector<float>{});
    EXPECT_EQ(f.convert<double>().shape(), (Shape{2, 0}));
    const Tensor<float> g({3}, {0.1f, -0.0f, 16777217.0f});
    const Tensor<double> wide = g.convert<double>();
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(wide.data()[k], static_cast<double>(g.data()[k]));
        EXPECT_EQ(std::signbit(wide.data()[k]), std::signbit(g.data()[k]));
    }
    EXPECT_EQ(wide.convert<float>(), g);
    EXPECT_EQ(g.convert<float>().data().data(), g.data().data());  // the same type shares
}

}  // namespace
}  // namespace topos
