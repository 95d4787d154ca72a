// Shape: the extents of a tensor's axes, outermost first. A rank-0 shape is a
// scalar (one element). Shapes are small values with inline storage: copying one
// never allocates. The rank is at most Shape::max_rank, and the product of the
// nonzero extents at most Shape::max_elements, so that element counts, strides
// and byte counts of every element type never overflow: a shape beyond either
// limit is refused with a ShapeError where it is made.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <span>
#include <string>

namespace topos {

class Shape {
public:
    // The most axes a shape may have.
    static constexpr std::size_t max_rank = 8;
    // 2^60 - 1 (2^28 - 1 where std::size_t has 32 bits, as in WebAssembly): any
    // element count times the largest element size (8 bytes) stays within
    // std::ptrdiff_t.
    static constexpr std::size_t max_elements = std::numeric_limits<std::size_t>::max() >> 4;

    // The rank-0 shape: a scalar, one element.
    Shape() = default;
    // Shape{2, 3}: the extents, outermost first; ShapeError beyond either limit.
    Shape(std::initializer_list<std::size_t> extents);
    // The same from a span of extents.
    explicit Shape(std::span<const std::size_t> extents);

    // The number of axes.
    std::size_t rank() const { return rank_; }

    // The product of the extents (1 at rank 0, 0 when an extent is 0).
    std::size_t elements() const;

    // The extent of `axis`, unchecked (`axis` must be below rank()).
    std::size_t operator[](std::size_t axis) const { return extents_[axis]; }

    // The extents, outermost first.
    std::span<const std::size_t> extents() const { return {extents_.data(), rank_}; }

    // Row-major strides in elements (the last axis has stride 1).
    std::array<std::size_t, max_rank> strides() const;

    // A copy with one axis removed, inserted, or resized.
    Shape without_axis(std::size_t axis) const;
    Shape with_axis(std::size_t axis, std::size_t extent) const;
    Shape with_extent(std::size_t axis, std::size_t extent) const;

    // The extents in brackets: "[2, 3]", "[]" at rank 0.
    std::string str() const;

    // Same rank and the same extents.
    friend bool operator==(const Shape& a, const Shape& b);

private:
    std::array<std::size_t, max_rank> extents_{};
    std::size_t rank_ = 0;
};

// Writes str().
std::ostream& operator<<(std::ostream& out, const Shape& shape);

}  // namespace topos
