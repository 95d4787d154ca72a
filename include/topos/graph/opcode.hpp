// The closed instruction set of topos, written out by hand, and the typed
// attributes of the parametrised opcodes. Every opcode is one row of the op table
// (src/ops/): its shape rule, reference kernel and derivative rule live there.
// Binary opcodes demand equal shapes: broadcasting is recorded explicitly.
#pragma once

#include <topos/core/shape.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>
#include <variant>

namespace topos {

enum class Opcode : std::uint8_t {
    // sources
    Parameter,
    Input,
    Leaf,
    // elementwise binary
    Add,
    Sub,
    Mul,
    Div,
    Maximum,
    GreaterEqual,
    // elementwise unary
    Neg,
    Exp,
    Log,
    Tanh,
    Sigmoid,
    // contraction and reduction
    MatMul,
    Sum,
    // layout
    Reshape,
    Permute,
    BroadcastAlong,
    Unfold,
    Fold,
    Narrow,
    Pad,
};

inline constexpr std::size_t opcode_count = static_cast<std::size_t>(Opcode::Pad) + 1;

std::string_view name_of(Opcode opcode);
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

struct NoAttributes {
    friend bool operator==(const NoAttributes&, const NoAttributes&) = default;
};

// Sum along one axis, removing it.
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

// Zeros added before and after `axis`: the adjoint of Narrow.
struct PadAttributes {
    std::size_t axis = 0;
    std::size_t before = 0;
    std::size_t after = 0;
    friend bool operator==(const PadAttributes&, const PadAttributes&) = default;
};

using Attributes = std::variant<NoAttributes,
                                AxisAttributes,
                                ReshapeAttributes,
                                PermuteAttributes,
                                BroadcastAttributes,
                                WindowAttributes,
                                FoldAttributes,
                                NarrowAttributes,
                                PadAttributes>;

// The attributes as describe prints them: `axis=2 size=3 step=1 dilation=1`;
// nothing for NoAttributes.
std::ostream& operator<<(std::ostream& out, const Attributes& attributes);

}  // namespace topos
