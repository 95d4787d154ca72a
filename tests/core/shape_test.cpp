// Shape: extents, element counts, strides, the axis edits, printing, and the
// rank limit.
#include <topos/core/error.hpp>
#include <topos/core/shape.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <sstream>
#include <type_traits>
#include <vector>

namespace topos {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Shape, ReportsRankElementsAndExtents) {
    const Shape s{2, 3};
    EXPECT_EQ(s.rank(), 2u);
    EXPECT_EQ(s.elements(), 6u);
    EXPECT_EQ(s[0], 2u);
    EXPECT_EQ(s[1], 3u);
    EXPECT_THAT(std::vector<std::size_t>(s.extents().begin(), s.extents().end()),
                ElementsAre(2u, 3u));
}

TEST(Shape, OfRankZeroIsAScalarWithOneElement) {
    const Shape scalar{};
    EXPECT_EQ(scalar.rank(), 0u);
    EXPECT_EQ(scalar.elements(), 1u);
    EXPECT_TRUE(scalar.extents().empty());
    EXPECT_EQ(Shape(), scalar);
}

TEST(Shape, WithAZeroExtentHoldsNoElements) {
    EXPECT_EQ((Shape{3, 0, 2}).elements(), 0u);
}

TEST(Shape, IsBuiltFromASpanOfExtents) {
    const std::vector<std::size_t> extents{4, 1, 5};
    const Shape s{std::span<const std::size_t>(extents)};
    EXPECT_EQ(s, (Shape{4, 1, 5}));
}

TEST(Shape, HasRowMajorStrides) {
    const auto strides = Shape{2, 3, 4}.strides();
    EXPECT_EQ(strides[0], 12u);
    EXPECT_EQ(strides[1], 4u);
    EXPECT_EQ(strides[2], 1u);
}

TEST(Shape, ComparesByExtentsAndRank) {
    EXPECT_EQ((Shape{2, 3}), (Shape{2, 3}));
    EXPECT_FALSE((Shape{2, 3}) == (Shape{3, 2}));
    EXPECT_FALSE((Shape{1}) == (Shape{}));
    EXPECT_FALSE((Shape{2, 3}) == (Shape{2, 3, 1}));
}

TEST(Shape, RemovesInsertsAndResizesAxes) {
    const Shape s{2, 3, 4};
    EXPECT_EQ(s.without_axis(1), (Shape{2, 4}));
    EXPECT_EQ(s.without_axis(0), (Shape{3, 4}));
    EXPECT_EQ(s.with_axis(0, 5), (Shape{5, 2, 3, 4}));
    EXPECT_EQ(s.with_axis(3, 5), (Shape{2, 3, 4, 5}));
    EXPECT_EQ(s.with_axis(1, 7), (Shape{2, 7, 3, 4}));
    EXPECT_EQ(s.with_extent(2, 9), (Shape{2, 3, 9}));
    EXPECT_EQ(Shape{}.with_axis(0, 3), (Shape{3}));
    EXPECT_EQ(s, (Shape{2, 3, 4}));  // the edits return copies
}

TEST(Shape, PrintsAsABracketedList) {
    EXPECT_EQ((Shape{2, 3}).str(), "[2, 3]");
    EXPECT_EQ((Shape{16}).str(), "[16]");
    EXPECT_EQ(Shape{}.str(), "[]");
    std::ostringstream out;
    out << Shape{1, 2};
    EXPECT_EQ(out.str(), "[1, 2]");
}

TEST(Shape, AcceptsTheMaximumRank) {
    std::array<std::size_t, Shape::max_rank> extents{};
    extents.fill(1);
    const Shape s{std::span<const std::size_t>(extents)};
    EXPECT_EQ(s.rank(), Shape::max_rank);
    EXPECT_EQ(Shape::max_rank, 8u);
}

TEST(Shape, RejectsARankAboveTheMaximum) {
    std::array<std::size_t, Shape::max_rank + 1> extents{};
    extents.fill(2);
    try {
        const Shape s{std::span<const std::size_t>(extents)};
        FAIL() << "a rank-9 shape was accepted: " << s;
    } catch (const ShapeError& error) {
        EXPECT_THAT(error.what(), HasSubstr("9"));
        EXPECT_THAT(error.what(), HasSubstr("maximum rank of 8"));
    }
    EXPECT_THROW(Shape({1, 2, 3, 4, 5, 6, 7, 8, 9}), ShapeError);
}

TEST(Shape, RejectsInsertingAnAxisAtTheMaximumRank) {
    const Shape full{1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_THROW(full.with_axis(0, 2), ShapeError);
}

// ---- sizes: no element count, stride or byte count can wrap ----

constexpr std::size_t two_to_the(unsigned power) {
    return std::size_t{1} << power;
}

TEST(Shape, AcceptsExtentsThatMultiplyToTheMaximumElementCount) {
    const Shape largest{Shape::max_elements};
    EXPECT_EQ(largest.elements(), Shape::max_elements);
    const Shape split{two_to_the(30), two_to_the(29)};
    EXPECT_EQ(split.elements(), two_to_the(59));
    EXPECT_EQ(split.strides()[0], two_to_the(29));
}

TEST(Shape, RejectsExtentsThatMultiplyPastTheMaximumNamingTheShape) {
    try {
        const Shape s{two_to_the(62), 4};
        FAIL() << "a shape of 2^64 elements was accepted: " << s;
    } catch (const ShapeError& error) {
        EXPECT_THAT(error.what(), HasSubstr("[4611686018427387904, 4]"));
        EXPECT_THAT(error.what(), HasSubstr("too large"));
    }
    EXPECT_THROW(Shape({Shape::max_elements + 1}), ShapeError);
    EXPECT_THROW(Shape({two_to_the(31), two_to_the(30)}), ShapeError);
    // 2^64 + 2^32 wraps to a small count: the check is on the product, not a wrapped one.
    EXPECT_THROW(Shape({two_to_the(32) + 1, two_to_the(32)}), ShapeError);
}

// A zero extent makes the count 0, but the strides of the other axes still
// multiply: they must stay addressable too.
TEST(Shape, RejectsHugeExtentsBesideAZeroExtent) {
    EXPECT_EQ((Shape{0, two_to_the(30), two_to_the(29)}).elements(), 0u);
    EXPECT_THROW(Shape({0, two_to_the(40), two_to_the(40)}), ShapeError);
}

TEST(Shape, RejectsAxisEditsThatWouldOverflow) {
    const Shape s{two_to_the(40)};
    EXPECT_THROW((void)s.with_axis(0, two_to_the(30)), ShapeError);
    EXPECT_THROW((void)(Shape{4, 4}).with_extent(0, two_to_the(62)), ShapeError);
    EXPECT_EQ(s.with_axis(1, 2).elements(), two_to_the(41));
}

TEST(Shape, IsTriviallyCopyableSoCopiesNeverAllocate) {
    EXPECT_TRUE(std::is_trivially_copyable_v<Shape>);
}

}  // namespace
}  // namespace topos
