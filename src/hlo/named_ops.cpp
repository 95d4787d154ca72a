// The named StableHLO operations elected patterns raise to: convolution,
// reduce_window, batch_norm_training and batch_norm_inference, with the result
// types and generic attributes the StableHLO specification gives them. Their
// custom syntax is intricate, so the pretty form writes them generically too.
#include "hlo/builder.hpp"
#include "hlo/literals.hpp"

#include <string>

namespace topos::detail {
namespace {

HloOperation named_operation(std::string_view name, std::vector<HloValue> operands) {
    HloOperation op;
    op.name = name;
    op.operands = std::move(operands);
    op.pretty = {PrettySyntax::Kind::Generic, {}, {}};
    return op;
}

// One letter per axis of a rank-4 tensor: `[b, f, 0, 1]`.
std::string axis_letters(std::size_t batch,
                         char batch_letter,
                         std::size_t feature,
                         char feature_letter,
                         const std::array<std::size_t, 2>& spatial) {
    // Characters, not strings: g++ 12 -O3 reports a false -Wrestrict on
    // assigning short literals to strings in an array.
    std::array<char, 4> letters{};
    letters.at(batch) = batch_letter;
    letters.at(feature) = feature_letter;
    letters.at(spatial[0]) = '0';
    letters.at(spatial[1]) = '1';
    std::string text = "[";
    for (std::size_t axis = 0; axis < letters.size(); ++axis) {
        text += axis == 0 ? "" : ", ";
        text += letters[axis];
    }
    return text + ']';
}

std::string conv_dimension_numbers(const ConvolutionLayout& l) {
    return "#stablehlo.conv<" + axis_letters(l.lhs_batch, 'b', l.lhs_feature, 'f', l.lhs_spatial) +
           'x' + axis_letters(l.rhs_input_feature, 'i', l.rhs_output_feature, 'o', l.rhs_spatial) +
           "->" + axis_letters(l.output_batch, 'b', l.output_feature, 'f', l.output_spatial) + '>';
}

std::string padding_attribute(const std::array<std::array<std::size_t, 2>, 2>& padding) {
    return "dense<[[" + std::to_string(padding[0][0]) + ", " + std::to_string(padding[0][1]) +
           "], [" + std::to_string(padding[1][0]) + ", " + std::to_string(padding[1][1]) +
           "]]> : tensor<2x2xi64>";
}

std::vector<std::size_t> pair(const std::array<std::size_t, 2>& values) {
    return {values[0], values[1]};
}

// How many windows fit along one spatial axis: floor((padded - dilated kernel) / stride) + 1.
std::size_t window_count(std::size_t padded,
                         std::size_t kernel,
                         std::size_t dilation,
                         std::size_t stride) {
    const std::size_t reach = kernel == 0 ? 0 : (kernel - 1) * dilation + 1;
    return padded < reach || kernel == 0 ? 0 : (padded - reach) / stride + 1;
}

std::string epsilon_attribute(float epsilon) {
    return real_literal(epsilon) + " : f32";
}

}  // namespace

HloValue HloBuilder::convolution(HloValue lhs, HloValue rhs, const ConvolutionLayout& layout) {
    const Shape input = shape(lhs);
    const Shape kernel = shape(rhs);
    std::vector<std::size_t> extents(4);
    extents[layout.output_batch] = input[layout.lhs_batch];
    extents[layout.output_feature] = kernel[layout.rhs_output_feature];
    for (std::size_t d = 0; d < 2; ++d) {
        const std::size_t padded =
            input[layout.lhs_spatial[d]] + layout.padding[d][0] + layout.padding[d][1];
        extents[layout.output_spatial[d]] = window_count(
            padded, kernel[layout.rhs_spatial[d]], layout.rhs_dilation[d], layout.strides[d]);
    }
    HloOperation op = named_operation("stablehlo.convolution", {lhs, rhs});
    op.attributes.push_back({"window_strides", i64_array(pair(layout.strides))});
    op.attributes.push_back({"padding", padding_attribute(layout.padding)});
    op.attributes.push_back({"lhs_dilation", i64_array({1, 1})});
    op.attributes.push_back({"rhs_dilation", i64_array(pair(layout.rhs_dilation))});
    op.attributes.push_back({"dimension_numbers", conv_dimension_numbers(layout)});
    op.attributes.push_back({"feature_group_count", "1 : i64"});
    op.attributes.push_back({"batch_group_count", "1 : i64"});
    op.attributes.push_back(
        {"precision_config", "[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]"});
    return append(std::move(op), {Shape(extents), HloElement::Real});
}

HloValue HloBuilder::reduce_window(HloValue a,
                                   double init,
                                   std::string_view body,
                                   const ReduceWindowLayout& window) {
    const HloValue start = splat(init, Shape{});
    const Shape input = shape(a);
    std::vector<std::size_t> extents;
    for (std::size_t axis = 0; axis < input.rank(); ++axis) {
        extents.push_back(window_count(
            input[axis], window.dimensions[axis], window.dilations[axis], window.strides[axis]));
    }
    HloOperation op = named_operation("stablehlo.reduce_window", {a, start});
    op.regions.push_back(binary_body(body));
    op.attributes.push_back({"window_dimensions", i64_array(window.dimensions)});
    op.attributes.push_back({"window_strides", i64_array(window.strides)});
    op.attributes.push_back({"window_dilations", i64_array(window.dilations)});
    return append(std::move(op), {Shape(extents), HloElement::Real});
}

BatchNormResults HloBuilder::batch_norm_training(HloValue x,
                                                 HloValue scale,
                                                 HloValue offset,
                                                 float epsilon) {
    HloOperation op = named_operation("stablehlo.batch_norm_training", {x, scale, offset});
    op.attributes.push_back({"epsilon", epsilon_attribute(epsilon)});
    op.attributes.push_back({"feature_index", "1 : i64"});
    const HloType statistic{Shape{shape(x)[1]}, HloElement::Real};
    const std::vector<HloValue> results =
        append_results(std::move(op), {module_.type_of(x), statistic, statistic});
    return {results[0], results[1], results[2]};
}

HloValue HloBuilder::batch_norm_inference(
    HloValue x, HloValue scale, HloValue offset, HloValue mean, HloValue variance, float epsilon) {
    HloOperation op =
        named_operation("stablehlo.batch_norm_inference", {x, scale, offset, mean, variance});
    op.attributes.push_back({"epsilon", epsilon_attribute(epsilon)});
    op.attributes.push_back({"feature_index", "1 : i64"});
    return append(std::move(op), module_.type_of(x));
}

}  // namespace topos::detail
