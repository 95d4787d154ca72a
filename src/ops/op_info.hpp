// The row type of the op table: everything topos knows about one opcode, in one
// place. A row is written in one file under src/ops/ and assembled by
// op_table.cpp in the order of <topos/ops/opcodes.def>. Sources (Parameter,
// Input, Leaf) have rows too, with no shape rule, kernel or derivative: their
// values are payloads. The rules see a node through NodeView (its opcode,
// attributes and shape), so the table needs nothing of the graph above it.
#pragma once

#include "kernels/transcendental.hpp"
#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/ops/opcode.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace topos::detail {

// A node as the op table's rules see it: its opcode, attributes and shape,
// without its place in a tape. Cheap to copy: it refers to the node's own.
class NodeView {
public:
    NodeView(Opcode opcode, const Attributes& attributes, const Shape& shape)
        : opcode_(opcode), attributes_(&attributes), shape_(&shape) {}

    Opcode opcode() const { return opcode_; }

    const Attributes& attributes() const { return *attributes_; }

    template <class A>
    const A& attributes_as() const {
        return std::get<A>(*attributes_);
    }

    const Shape& shape() const { return *shape_; }

private:
    Opcode opcode_;
    const Attributes* attributes_;
    const Shape* shape_;
};

// The most operands an opcode takes (Select's three).
inline constexpr std::size_t max_operands = 3;

// A read-only operand of a kernel: contiguous row-major elements and a shape.
template <Element T>
struct View {
    const T* data;
    const Shape* shape;
};

// The reference kernel: writes node.shape().elements() values to `out`, in the
// one documented order. `out` never aliases an operand.
template <Element T>
using Kernel = void (*)(const NodeView& node, std::span<const View<T>> operands, T* out);

// What a shape rule sees: the operands' shapes and the node's attributes. A rule
// that finds a problem calls fail() with a sentence that says how to fix it; the
// thrown ShapeError also names the operation, the operand nodes and their shapes.
class ShapeCheck {
public:
    ShapeCheck(Opcode opcode,
               std::span<const std::uint32_t> operand_nodes,
               std::span<const Shape> operand_shapes,
               const Attributes& attributes)
        : opcode_(opcode),
          operand_nodes_(operand_nodes),
          operand_shapes_(operand_shapes),
          attributes_(attributes) {}

    std::size_t arity() const { return operand_shapes_.size(); }

    const Shape& operand(std::size_t i) const { return operand_shapes_[i]; }

    const Attributes& all_attributes() const { return attributes_; }

    template <class A>
    const A& attributes() const {
        if (const A* attributes = std::get_if<A>(&attributes_)) {
            return *attributes;
        }
        fail("the attributes given are not of this operation's kind");
    }

    void require(bool condition, const std::string& problem) const {
        if (!condition) {
            fail(problem);
        }
    }

    // Checks that `axis` names an axis of operand i (or one past, if `inclusive`).
    void require_axis(std::size_t operand, std::size_t axis, bool inclusive = false) const;

    [[noreturn]] void fail(const std::string& problem) const;

    // a + b and a * b for extents computed from attributes, failing where the
    // result would wrap (`what` names the quantity in the message).
    std::size_t sum(std::size_t a, std::size_t b, const char* what) const;
    std::size_t product(std::size_t a, std::size_t b, const char* what) const;

private:
    Opcode opcode_;
    std::span<const std::uint32_t> operand_nodes_;
    std::span<const Shape> operand_shapes_;
    const Attributes& attributes_;
};

using ShapeRule = Shape (*)(const ShapeCheck& check);

// A value during differentiation: a node index of the tape (recorded road) or
// of the run's value list (reverse-scan road). Forward values keep their node
// index on both roads.
struct Ref {
    std::uint32_t id;
};

// Builds adjoint expressions. Each derivative rule is written once against this
// interface; the reverse scan computes with it, Tape::differentiate records.
class AdjointBuilder {
public:
    virtual ~AdjointBuilder() = default;

    virtual Ref apply(Opcode opcode,
                      std::span<const Ref> operands,
                      const Attributes& attributes) = 0;
    // By value: recording may move the storage a reference would point into.
    virtual Shape shape(Ref value) const = 0;
    // A rank-0 constant.
    virtual Ref scalar(double value) = 0;

    Ref apply(Opcode opcode,
              std::initializer_list<Ref> operands,
              const Attributes& attributes = NoAttributes{}) {
        return apply(opcode, std::span<const Ref>(operands.begin(), operands.size()), attributes);
    }

    Ref unary(Opcode opcode, Ref a, const Attributes& attributes = NoAttributes{}) {
        return apply(opcode, std::span<const Ref>(&a, 1), attributes);
    }

    Ref compare(Ref a, Ref b, Comparison direction) {
        return apply(Opcode::Compare, {a, b}, CompareAttributes{direction});
    }

    Ref add(Ref a, Ref b) { return binary(Opcode::Add, a, b); }

    Ref sub(Ref a, Ref b) { return binary(Opcode::Sub, a, b); }

    Ref mul(Ref a, Ref b) { return binary(Opcode::Mul, a, b); }

    Ref div(Ref a, Ref b) { return binary(Opcode::Div, a, b); }

    Ref neg(Ref a) { return unary(Opcode::Neg, a, NoAttributes{}); }

    Ref matmul(Ref a, Ref b) { return binary(Opcode::MatMul, a, b); }

    Ref sum(Ref a) { return unary(Opcode::Sum, a, NoAttributes{}); }

    Ref sum(Ref a, std::size_t axis) { return unary(Opcode::Sum, a, AxisAttributes{axis}); }

    Ref reshape(Ref a, const Shape& shape) {
        return unary(Opcode::Reshape, a, ReshapeAttributes{shape});
    }

    Ref permute(Ref a, const Axes& order) {
        return unary(Opcode::Permute, a, PermuteAttributes{order});
    }

    Ref broadcast_along(Ref a, std::size_t axis, std::size_t extent) {
        return unary(Opcode::BroadcastAlong, a, BroadcastAttributes{axis, extent});
    }

    // Repeats a rank-0 value over `shape`, one BroadcastAlong per axis.
    Ref broadcast_scalar(Ref a, const Shape& shape);

    // A constant of `shape`: a rank-0 constant repeated.
    Ref filled(const Shape& shape, double value) { return broadcast_scalar(scalar(value), shape); }

    Ref unfold(Ref a, const WindowAttributes& window) { return unary(Opcode::Unfold, a, window); }

    Ref fold(Ref a, const FoldAttributes& fold) { return unary(Opcode::Fold, a, fold); }

    Ref narrow(Ref a, const NarrowAttributes& narrow) { return unary(Opcode::Narrow, a, narrow); }

    Ref pad(Ref a, const PadAttributes& pad) { return unary(Opcode::Pad, a, pad); }

private:
    Ref binary(Opcode opcode, Ref a, Ref b) {
        const Ref operands[] = {a, b};
        return apply(opcode, operands, NoAttributes{});
    }
};

// What a derivative rule sees: the node, its operands' and its own forward
// values, the adjoint arriving at the node, and the builder to express with.
struct VjpContext {
    NodeView node;
    std::span<const Ref> operands;
    Ref output;
    Ref adjoint;
    AdjointBuilder& build;
};

// Writes one contribution per differentiable operand (left empty: none).
using VjpRule = void (*)(const VjpContext& context, std::span<std::optional<Ref>> contributions);

class HloBuilder;
struct HloValue;

// Writes the node as StableHLO operations (src/hlo/builder.hpp), reading its
// operands' values from the builder, and returns the value that stands for it.
using LowerRule = HloValue (*)(HloBuilder& build, const NodeView& node);

// What kind of computation a row is, for the passes that treat a kind alike.
enum class OpKind : std::uint8_t {
    Source,       // no operands: a payload (Parameter, Input, Leaf)
    Elementwise,  // each element from the same position of equal-shaped operands
    Layout,       // moves elements without computing on them, so it carries indices too
    General,      // products, reductions, window sums, indexing
};

// What the simplifier knows when it asks a row whether a node is an identity:
// the nodes its operands are, which of them are constants holding 1, or a zero
// of one sign, in every element, and any node's opcode, attributes, shape and
// operands (a Permute looks through the permute it reads).
class IdentityFacts {
public:
    // The node of the asking node's operand `position`.
    virtual std::uint32_t operand(std::size_t position) const = 0;
    // Whether every element of `node` is +1.
    virtual bool is_one(std::uint32_t node) const = 0;
    // Whether every element of `node` is a zero, -0 when `negative`, else +0.
    virtual bool is_zero(std::uint32_t node, bool negative) const = 0;
    // `node` as the rules see it.
    virtual NodeView view(std::uint32_t node) const = 0;
    // The node of `node`'s operand `position`.
    virtual std::uint32_t operand_of(std::uint32_t node, std::size_t position) const = 0;

protected:
    ~IdentityFacts() = default;
};

// The node a node equals element for element, whatever its operands hold
// beyond `facts` (x * 1 is x), or nullopt. The simplifier replaces the node by
// that one when their shapes and element types agree.
using IdentityRule = std::optional<std::uint32_t> (*)(const NodeView& node,
                                                      const IdentityFacts& facts);

// A row over the exps and a log of each row of its operand: what a backend
// with its own exp and log (the Fast lanes) recomputes it as.
enum class ExpLogRows : std::uint8_t {
    LogSumExp,
    LogSoftmax,
};

// The kernel of every bf16 node: widens its operands to float (exact), runs the
// node's float kernel and rounds each element of the result once to bf16 (the
// bf16 contract of docs/exact-math.md).
void widened_kernel(const NodeView& node, std::span<const View<bf16>> operands, bf16* out);

// The bf16 kernel of a row with bf16_table: widened_kernel's results over
// every bf16 bit pattern, computed once per opcode, read an element at a time.
void tabulated_kernel(const NodeView& node, std::span<const View<bf16>> operands, bf16* out);

struct OpInfo {
    Opcode opcode{};
    OpKind kind{};
    std::size_t arity = 0;
    ShapeRule infer = nullptr;
    Kernel<float> kernel_f32 = nullptr;
    Kernel<double> kernel_f64 = nullptr;
    // A bf16 kernel of the row's own, with the bits of widened_kernel (float's
    // kernel on widened operands, rounded once) but faster; null: widened_kernel.
    Kernel<bf16> kernel_bf16 = nullptr;
    // Whether a bf16 node reads its values from a table of widened_kernel's
    // results over every bf16 (tabulated_kernel): for unary elementwise rows
    // without attributes whose float kernel costs more than a lookup (the
    // transcendental functions, each a double-precision evaluation).
    bool bf16_table = false;
    VjpRule vjp = nullptr;
    LowerRule lower = nullptr;
    // Operand positions (bit i: operand i) that must hold indices; the others
    // hold reals, and so does the result (a Layout row's result is of its
    // operands' kind).
    std::uint8_t index_operands = 0;
    // The simplifier's identity of this opcode (null: none).
    IdentityRule identity = nullptr;
    // Whether a node holds one value in every element when its first operand
    // does (a broadcast, reshape or permute of a constant is that constant).
    bool keeps_a_uniform_fill = false;
    // Whether a node's value is its first operand's elements in the same
    // order (Reshape): a plan may give it the operand's buffer and run nothing.
    bool reuses_operand_buffer = false;
    // The terms each element of a node's value adds up, for the cost estimates
    // of plans and readings (a matrix product's depth, its left operand's last
    // extent); null: an element is computed from single elements.
    std::size_t (*depth)(std::span<const Shape> operand_shapes) = nullptr;
    // Whether a node is a batched matrix product of its two operands
    // ([..., m, k] x [..., k, n], each output an fma chain over k), which a
    // backend may run with its own GEMM.
    bool matrix_product = false;
    // Whether each element of a node's value is one of its operands' elements
    // (Max, Maximum, Minimum): rounding to a narrower type before it or after it
    // gives the same bits (a NaN's quiet bit aside, which a last rounding sets
    // as a first would), so a bf16 plan may fuse it with no rounding inside.
    bool picks_an_operand_element = false;
    // The transcendental function of the vector lanes an elementwise row's
    // kernel is (exact_map of it), which a backend may compute its own way.
    std::optional<ExactFunction> lane_function = std::nullopt;
    // What a row over exps and a log computes (LogSumExp, LogSoftmax).
    std::optional<ExpLogRows> exp_log_rows = std::nullopt;

    bool carries_indices() const { return kind == OpKind::Layout; }

    // Whether the kernel must run for a node of this `result` shape. An empty
    // result has nothing to write, and its operands' other axes may be huge
    // (a [2^47, 0] summed along its first axis), so only the rows that check
    // indices run for one: a bad index is an error even where nothing is read.
    bool kernel_runs_for(const Shape& result) const {
        return result.elements() != 0 || index_operands != 0;
    }

    // A bf16 node's kernel is float's on widened operands, rounded once: the
    // row's kernel_bf16 where it has one, its table where it asks for one,
    // else widened_kernel.
    template <Element T>
    Kernel<T> kernel() const {
        if constexpr (std::same_as<T, float>) {
            return kernel_f32;
        } else if constexpr (std::same_as<T, double>) {
            return kernel_f64;
        } else if (kernel_bf16 != nullptr) {
            return kernel_bf16;
        } else if (bf16_table) {
            return tabulated_kernel;
        } else {
            return kernel_f32 != nullptr ? widened_kernel : nullptr;
        }
    }
};

// The row of one opcode. The first call assembles the table and checks every
// row (check_row), so an incomplete row stops every program that uses the table.
const OpInfo& op_info(Opcode opcode);

// Throws Error unless `row` is a complete row for `expected`: the message names
// the opcode, the function that built the row and the first piece it lacks.
void check_row(const OpInfo& row, Opcode expected);

// Runs the opcode's shape rule; throws ShapeError naming the operation, the
// operand nodes and their shapes.
Shape infer_shape(Opcode opcode,
                  std::span<const std::uint32_t> operand_nodes,
                  std::span<const Shape> operand_shapes,
                  const Attributes& attributes);

}  // namespace topos::detail
