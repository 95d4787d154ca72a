// Shape's out-of-line members: construction and the axis edits, each checking
// the rank against max_rank and the product of the extents against
// max_elements (a ShapeTooLarge names the extents), and the row-major strides,
// equality and the "[2, 3]" text.
#include "core/shape_too_large.hpp"
#include <topos/core/error.hpp>
#include <topos/core/shape.hpp>

#include <algorithm>
#include <limits>
#include <ostream>
#include <string>

namespace topos {
namespace {

void check_rank(std::size_t rank) {
    if (rank > Shape::max_rank) {
        throw ShapeError("a shape of rank " + std::to_string(rank) +
                         " exceeds topos's maximum rank of " + std::to_string(Shape::max_rank) +
                         "; reshape to merge axes");
    }
}

std::string text_of(std::span<const std::size_t> extents) {
    std::string text = "[";
    for (std::size_t axis = 0; axis < extents.size(); ++axis) {
        text += (axis ? ", " : "") + std::to_string(extents[axis]);
    }
    return text + ']';
}

// Every shape passes here: the product of its nonzero extents (what the strides
// reach) must stay within max_elements.
void check_size(std::span<const std::size_t> extents) {
    std::size_t reach = 1;
    for (const std::size_t extent : extents) {
        if (extent != 0 && reach > Shape::max_elements / extent) {
            throw detail::ShapeTooLarge(
                "the shape " + text_of(extents) + " is too large: its extents multiply past 2^" +
                std::to_string(std::numeric_limits<std::size_t>::digits - 4) +
                " - 1 (Shape::max_elements), more "
                "elements than any tensor can address; check the extents and attributes that "
                "produced it");
        }
        reach *= extent == 0 ? 1 : extent;
    }
}

}  // namespace

Shape::Shape(std::initializer_list<std::size_t> extents)
    : Shape(std::span<const std::size_t>(extents.begin(), extents.size())) {}

Shape::Shape(std::span<const std::size_t> extents) : rank_(extents.size()) {
    check_rank(extents.size());
    check_size(extents);
    std::copy(extents.begin(), extents.end(), extents_.begin());
}

std::size_t Shape::elements() const {
    std::size_t count = 1;
    for (std::size_t axis = 0; axis < rank_; ++axis) {
        count *= extents_[axis];
    }
    return count;
}

std::array<std::size_t, Shape::max_rank> Shape::strides() const {
    std::array<std::size_t, max_rank> strides{};
    std::size_t stride = 1;
    for (std::size_t axis = rank_; axis-- > 0;) {
        strides[axis] = stride;
        stride *= extents_[axis];
    }
    return strides;
}

Shape Shape::without_axis(std::size_t axis) const {
    Shape result;
    for (std::size_t i = 0; i < rank_; ++i) {
        if (i != axis) {
            result.extents_[result.rank_++] = extents_[i];
        }
    }
    return result;
}

Shape Shape::with_axis(std::size_t axis, std::size_t extent) const {
    check_rank(rank_ + 1);
    Shape result;
    for (std::size_t i = 0; i <= rank_; ++i) {
        if (i == axis) {
            result.extents_[result.rank_++] = extent;
        }
        if (i < rank_) {
            result.extents_[result.rank_++] = extents_[i];
        }
    }
    check_size(result.extents());
    return result;
}

Shape Shape::with_extent(std::size_t axis, std::size_t extent) const {
    Shape result = *this;
    result.extents_[axis] = extent;
    check_size(result.extents());
    return result;
}

std::string Shape::str() const {
    return text_of(extents());
}

bool operator==(const Shape& a, const Shape& b) {
    return std::equal(
        a.extents().begin(), a.extents().end(), b.extents().begin(), b.extents().end());
}

std::ostream& operator<<(std::ostream& out, const Shape& shape) {
    return out << shape.str();
}

}  // namespace topos
