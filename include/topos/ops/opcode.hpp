// The closed instruction set of topos and the typed attributes of the
// parametrised opcodes. The opcodes are the lines of <topos/ops/opcodes.def>;
// every opcode is one row of the op table (src/ops/): its shape rule, reference
// kernel, derivative rule and StableHLO lowering live there. Binary opcodes
// demand equal shapes: broadcasting is recorded explicitly.
#pragma once

#include <topos/core/bf16.hpp>
#include <topos/core/shape.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <iterator>
#include <span>
#include <string_view>
#include <variant>

namespace topos {

enum class Opcode : std::uint8_t {
#define TOPOS_OPCODE(enumerator, row) enumerator,
#include <topos/ops/opcodes.def>
};

namespace detail {
// The enumerators' names, in list order.
inline constexpr std::string_view opcode_names[] = {
#define TOPOS_OPCODE(enumerator, row) #enumerator,
#include <topos/ops/opcodes.def>
};
}  // namespace detail

inline constexpr std::size_t opcode_count = std::size(detail::opcode_names);

// What a node's elements are: real numbers, or indices (exact integers carried
// in the tape's element type, read by Gather, ScatterAdd and OneHot).
enum class DType : std::uint8_t {
    Real,
    Index,
};

std::ostream& operator<<(std::ostream& out, DType dtype);

// The enumerator's name: "MatMul".
constexpr std::string_view name_of(Opcode opcode) {
    return detail::opcode_names[static_cast<std::size_t>(opcode)];
}

std::ostream& operator<<(std::ostream& out, Opcode opcode);

// Whether the opcode is a source (Parameter, Input, Leaf): no operands, a payload.
constexpr bool is_source(Opcode opcode) {
    return opcode == Opcode::Parameter || opcode == Opcode::Input || opcode == Opcode::Leaf;
}

// An ordered list of axes (a permutation), with inline storage like Shape.
class Axes {
public:
    Axes() = default;
    Axes(std::initializer_list<std::size_t> axes);
    explicit Axes(std::span<const std::size_t> axes);

    std::size_t size() const { return size_; }

    std::size_t operator[](std::size_t i) const { return axes_[i]; }

    std::span<const std::size_t> values() const { return {axes_.data(), size_}; }

    friend bool operator==(const Axes& a, const Axes& b);

private:
    std::array<std::size_t, Shape::max_rank> axes_{};
    std::size_t size_ = 0;
};

std::ostream& operator<<(std::ostream& out, const Axes& axes);

enum class Comparison : std::uint8_t {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
};

std::ostream& operator<<(std::ostream& out, Comparison comparison);

struct NoAttributes {
    friend bool operator==(const NoAttributes&, const NoAttributes&) = default;
};

// The axis of a single-axis reduction (Sum, Max, LogSumExp, removing it), of
// LogSoftmax (keeping it), or of Concat.
struct AxisAttributes {
    std::size_t axis = 0;
    friend bool operator==(const AxisAttributes&, const AxisAttributes&) = default;
};

struct ReshapeAttributes {
    Shape shape;
    friend bool operator==(const ReshapeAttributes&, const ReshapeAttributes&) = default;
};

// Output axis i is input axis order[i].
struct PermuteAttributes {
    Axes order;
    friend bool operator==(const PermuteAttributes&, const PermuteAttributes&) = default;
};

// Inserts a new axis at `axis` along which the operand repeats `extent` times.
struct BroadcastAttributes {
    std::size_t axis = 0;
    std::size_t extent = 0;
    friend bool operator==(const BroadcastAttributes&, const BroadcastAttributes&) = default;
};

// Sliding windows along `axis`: the axis becomes the window count and a window
// axis of extent `size` is inserted right after it. Element w of window c reads
// position c * step + w * dilation.
struct WindowAttributes {
    std::size_t axis = 0;
    std::size_t size = 1;
    std::size_t step = 1;
    std::size_t dilation = 1;
    friend bool operator==(const WindowAttributes&, const WindowAttributes&) = default;
};

// The adjoint of Unfold: sums windows back into an axis of `extent` positions.
struct FoldAttributes {
    std::size_t axis = 0;
    std::size_t size = 1;
    std::size_t step = 1;
    std::size_t dilation = 1;
    std::size_t extent = 0;
    friend bool operator==(const FoldAttributes&, const FoldAttributes&) = default;
};

// Positions [start, start + length) of `axis`.
struct NarrowAttributes {
    std::size_t axis = 0;
    std::size_t start = 0;
    std::size_t length = 0;
    friend bool operator==(const NarrowAttributes&, const NarrowAttributes&) = default;
};

// Zeros added before and after `axis`, and `interior` zeros between
// neighbouring elements: the adjoint of Narrow and Slice.
struct PadAttributes {
    std::size_t axis = 0;
    std::size_t before = 0;
    std::size_t after = 0;
    std::size_t interior = 0;
    friend bool operator==(const PadAttributes&, const PadAttributes&) = default;
};

// Positions start, start + step, ... of `axis`, `length` of them.
struct SliceAttributes {
    std::size_t axis = 0;
    std::size_t start = 0;
    std::size_t length = 0;
    std::size_t step = 1;
    friend bool operator==(const SliceAttributes&, const SliceAttributes&) = default;
};

struct CompareAttributes {
    Comparison direction = Comparison::Equal;
    friend bool operator==(const CompareAttributes&, const CompareAttributes&) = default;
};

// The element types a Convert rounds to: float, double and bf16.
enum class ElementType : std::uint8_t {
    F32,
    F64,
    BF16,
};

// `f32`, `f64`, `bf16`: StableHLO's spelling.
std::ostream& operator<<(std::ostream& out, ElementType type);

// The ElementType of a C++ element type: element_type_of<bf16> is BF16.
template <class U>
requires std::same_as<U, float> || std::same_as<U, double> || std::same_as<U, bf16>
inline constexpr ElementType element_type_of = std::same_as<U, float>    ? ElementType::F32
                                               : std::same_as<U, double> ? ElementType::F64
                                                                         : ElementType::BF16;

// Each element rounded once to the nearest value of `to` (ties to even; NaN
// kept, quiet; past `to`'s range, an infinity), kept in the tape's own type.
// Rounding to a type at least as wide as the tape's changes nothing.
struct ConvertAttributes {
    ElementType to = ElementType::F32;
    friend bool operator==(const ConvertAttributes&, const ConvertAttributes&) = default;
};

// The extent of the axis an index addresses: a table's rows (ScatterAdd) or a
// one-hot depth (OneHot).
struct RowsAttributes {
    std::size_t rows = 0;
    friend bool operator==(const RowsAttributes&, const RowsAttributes&) = default;
};

using Attributes = std::variant<NoAttributes,
                                AxisAttributes,
                                ReshapeAttributes,
                                PermuteAttributes,
                                BroadcastAttributes,
                                WindowAttributes,
                                FoldAttributes,
                                NarrowAttributes,
                                PadAttributes,
                                SliceAttributes,
                                CompareAttributes,
                                RowsAttributes,
                                ConvertAttributes>;

// The attributes as describe prints them: `axis=2 size=3 step=1 dilation=1`;
// nothing for NoAttributes.
std::ostream& operator<<(std::ostream& out, const Attributes& attributes);

}  // namespace topos
