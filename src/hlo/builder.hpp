// HloBuilder: what a row's lowering (OpInfo::lower) writes StableHLO with. It
// hands the rule its node's operands' values, appends one operation per call
// (inferring the result type the StableHLO specification gives it), and names
// what the node produced: the rule's result is `%v<node>`, its
// intermediates `%v<node>_0`, `%v<node>_1`, ... in the order they were made,
// then the values inside regions (which the pretty form may not show). An
// operation with several results names them `%v<node>#0`, `%v<node>#1`, ...
#pragma once

#include "hlo/module.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace topos::detail {

// The dimension numbers of stablehlo.dot_general.
struct DotDimensions {
    std::vector<std::size_t> lhs_batching;
    std::vector<std::size_t> rhs_batching;
    std::vector<std::size_t> lhs_contracting;
    std::vector<std::size_t> rhs_contracting;
};

// The layout of a rank-4 stablehlo.convolution: which axis of the input (lhs),
// the kernel (rhs) and the output holds the batch, the features and the two
// spatial dimensions, and the window: strides, kernel dilation and the
// [low, high] zero padding of each spatial dimension of the input.
struct ConvolutionLayout {
    std::size_t lhs_batch, lhs_feature;
    std::array<std::size_t, 2> lhs_spatial;
    std::size_t rhs_input_feature, rhs_output_feature;
    std::array<std::size_t, 2> rhs_spatial;
    std::size_t output_batch, output_feature;
    std::array<std::size_t, 2> output_spatial;
    std::array<std::size_t, 2> strides;
    std::array<std::size_t, 2> rhs_dilation;
    std::array<std::array<std::size_t, 2>, 2> padding;
};

// The window of a stablehlo.reduce_window, one entry per operand axis.
struct ReduceWindowLayout {
    std::vector<std::size_t> dimensions;
    std::vector<std::size_t> strides;
    std::vector<std::size_t> dilations;
};

// What stablehlo.batch_norm_training produces.
struct BatchNormResults {
    HloValue output;
    HloValue mean;
    HloValue variance;
};

// The comparisons of stablehlo.compare.
enum class HloComparison : std::uint8_t {
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE,
};

// The node whose operations the builder is writing: its index (which names
// its values), its operands' node indices, the shape its value must have, and
// what errors call it (an opcode's or a pattern's name).
struct HloSite {
    std::uint32_t node = 0;
    std::span<const std::uint32_t> operands;
    Shape shape;
    std::string_view label;
    // Operand positions (bit i: operand i) read as indices (index_operand),
    // which a plan storing bf16 does not widen to f32.
    std::uint8_t index_operands = 0;
};

class HloBuilder {
public:
    // `node_values` maps node indices to the values already emitted for them.
    HloBuilder(HloModule& module, std::span<const HloValue> node_values)
        : module_(module), node_values_(node_values) {}

    // Starts writing `site`; finish() checks and names what its rule returned.
    void begin(const HloSite& site);
    HloValue finish(HloValue result);

    // Throws EmitError naming the node being written and its label.
    [[noreturn]] void fail(const std::string& problem) const;

    const HloSite& site() const { return site_; }

    // Operand i in the computing type. A plan storing bf16 has its real
    // operands converted to f32 by begin(), in operand order (once per value),
    // so the module's text does not depend on the order a lowering's
    // arguments are evaluated in.
    HloValue operand(std::size_t i) const;

    // The value emitted for any earlier node (a pattern's inputs).
    HloValue value_of(std::uint32_t node) const { return node_values_[node]; }

    // Operand i converted to i64, for operations that index with integers.
    HloValue index_operand(std::size_t i) {
        return convert(node_values_[site_.operands[i]], HloElement::Integer);
    }

    // By value: appending operations grows the table a reference would point into.
    Shape shape(HloValue value) const { return module_.type_of(value).shape; }

    // Elementwise operations: the result has the first operand's type.
    HloValue unary(std::string_view name, HloValue a);
    HloValue binary(std::string_view name, HloValue a, HloValue b);

    HloValue add(HloValue a, HloValue b) { return binary("stablehlo.add", a, b); }

    HloValue subtract(HloValue a, HloValue b) { return binary("stablehlo.subtract", a, b); }

    HloValue multiply(HloValue a, HloValue b) { return binary("stablehlo.multiply", a, b); }

    // A real constant of `shape`, every element `value` (rounded to the plan's type).
    HloValue splat(double value, const Shape& shape);
    // A constant from the body of a dense<...> literal, of the computing type
    // or (a leaf's payload) the stored one.
    HloValue constant(const std::string& literal,
                      const Shape& shape,
                      HloElement element = HloElement::Real);

    HloValue compare(HloComparison direction, HloValue a, HloValue b);
    HloValue select(HloValue predicate, HloValue on_true, HloValue on_false);
    HloValue convert(HloValue a, HloElement element);
    HloValue is_finite(HloValue a);
    HloValue iota(const Shape& shape, std::size_t axis);

    HloValue reshape(HloValue a, const Shape& shape);
    // Result axis i is operand axis order[i].
    HloValue transpose(HloValue a, std::span<const std::size_t> order);
    // Operand axis i becomes result axis dims[i]; the others repeat.
    HloValue broadcast_in_dim(HloValue a, const Shape& shape, const std::vector<std::size_t>& dims);
    HloValue slice(
        HloValue a, std::size_t axis, std::size_t start, std::size_t limit, std::size_t stride);
    // Pads one axis with +0.
    HloValue pad(
        HloValue a, std::size_t axis, std::size_t low, std::size_t high, std::size_t interior);
    HloValue concatenate(const std::vector<HloValue>& parts, std::size_t axis);
    HloValue dot_general(HloValue lhs, HloValue rhs, const DotDimensions& dimensions);
    // Reduces `dims` away with `body` (`stablehlo.add` or `stablehlo.maximum`)
    // from the real `init`.
    HloValue reduce(HloValue a,
                    double init,
                    std::string_view body,
                    const std::vector<std::size_t>& dims);
    // The named operations elected patterns raise to (see pattern/catalog.hpp).
    HloValue convolution(HloValue lhs, HloValue rhs, const ConvolutionLayout& layout);
    // Reduces each window with `body` (`stablehlo.add` or `stablehlo.maximum`)
    // from the real `init`; the operand is not padded.
    HloValue reduce_window(HloValue a,
                           double init,
                           std::string_view body,
                           const ReduceWindowLayout& window);
    // Normalisation along every axis but 1 (the feature axis); epsilon is an
    // f32 attribute whatever the plan's type.
    BatchNormResults batch_norm_training(HloValue x,
                                         HloValue scale,
                                         HloValue offset,
                                         float epsilon);
    HloValue batch_norm_inference(HloValue x,
                                  HloValue scale,
                                  HloValue offset,
                                  HloValue mean,
                                  HloValue variance,
                                  float epsilon);
    // Rows of `table` picked by i64 `indices`: [picks..., rest...].
    HloValue gather_rows(HloValue table, HloValue indices);
    // `target` with each row of `updates` added at its i64 index.
    HloValue scatter_add_rows(HloValue target, HloValue indices, HloValue updates);

private:
    void widen_operands();
    HloValue append(HloOperation op, HloType result);
    std::vector<HloValue> append_results(HloOperation op, const std::vector<HloType>& results);
    HloBlock binary_body(std::string_view body);

    HloModule& module_;
    std::span<const HloValue> node_values_;
    HloSite site_;
    std::vector<HloValue> made_;                          // the values made for the current node
    std::vector<std::pair<HloValue, HloValue>> widened_;  // stored operands, converted to f32
    std::vector<HloValue> made_inside_;                   // those inside its operations' regions
    std::vector<std::vector<HloValue>> made_together_;    // the results of multi-result operations
};

}  // namespace topos::detail
