// Convolution: Conv and ConvTranspose over 1 to 3 spatial axes, grouped or not.
// Conv is im2col: the zero-padded input unfolded along each spatial axis and
// one matrix product with the filters (batched over the groups); the plain 2-D
// case records topos::conv2d, whose pattern a plan serves with a fused kernel.
// ConvTranspose is its adjoint: one product spreads every input pixel over a
// window of the output, and fold sums the overlapping windows (col2im).
#include "onnx/context.hpp"
#include "onnx/operators/windows.hpp"
#include "onnx/rules.hpp"
#include <topos/graph/compositions.hpp>
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace topos::onnx::detail {
namespace {

// One convolution's arrangement, spatial axis by spatial axis. For Conv,
// `before` and `after` pad the input; for ConvTranspose they crop the full
// output, and `extra` (output_padding) extends its end.
struct Geometry {
    std::vector<std::size_t> input;
    std::vector<std::size_t> kernel;
    std::vector<std::size_t> strides;
    std::vector<std::size_t> dilations;
    std::vector<std::size_t> before;
    std::vector<std::size_t> after;
    std::vector<std::size_t> extra;
    std::size_t groups = 1;

    std::size_t axes() const { return input.size(); }

    std::size_t span(std::size_t axis) const { return (kernel[axis] - 1) * dilations[axis] + 1; }

    // Conv's output extent.
    std::size_t windows(std::size_t axis) const {
        return (input[axis] + before[axis] + after[axis] - span(axis)) / strides[axis] + 1;
    }

    // ConvTranspose's extent before cropping: every position a window reaches.
    std::size_t full(std::size_t axis) const {
        return (input[axis] - 1) * strides[axis] + span(axis);
    }

    std::size_t cropped(std::size_t axis) const {
        return full(axis) + extra[axis] - before[axis] - after[axis];
    }
};

// Reads what both operators share: the spatial extents, the kernel, strides, dilations, group.
Geometry common_geometry(const Shape& input, const Shape& filters, const NodeDef& node) {
    if (input.rank() < 3 || filters.rank() != input.rank()) {
        contradiction(node,
                      "the input " + input.str() + " and the filters " + filters.str() +
                          " must both be [N, C, spatial axes...] of one rank, at least 3");
    }
    const std::size_t axes = input.rank() - 2;
    if (axes > 3) {
        not_handled("a convolution over " + std::to_string(axes) +
                    " spatial axes (1 to 3 are composed: the windows take two axes each of "
                    "topos's rank 8)");
    }
    Geometry geometry;
    for (std::size_t axis = 0; axis < axes; ++axis) {
        if (input[2 + axis] == 0 || filters[2 + axis] == 0) {
            not_handled("an empty spatial axis (the input " + input.str() + ", the filters " +
                        filters.str() + ")");
        }
        geometry.input.push_back(input[2 + axis]);
        geometry.kernel.push_back(filters[2 + axis]);
    }
    if (integers_attribute(node, "kernel_shape") &&
        per_axis(node, "kernel_shape", axes, 1, 1) != geometry.kernel) {
        contradiction(node, "kernel_shape contradicts the filters " + filters.str());
    }
    geometry.strides = per_axis(node, "strides", axes, 1, 1);
    geometry.dilations = per_axis(node, "dilations", axes, 1, 1);
    const std::int64_t groups = integer_attribute(node, "group", 1);
    if (groups < 1) {
        contradiction(node, "group=" + std::to_string(groups) + " is below 1");
    }
    geometry.groups = static_cast<std::size_t>(groups);
    return geometry;
}

void explicit_pads(Geometry& geometry, const NodeDef& node) {
    const std::size_t axes = geometry.axes();
    const auto pads = per_axis(node, "pads", 2 * axes, 0, 0);
    geometry.before.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(axes));
    geometry.after.assign(pads.begin() + static_cast<std::ptrdiff_t>(axes), pads.end());
}

Geometry conv_geometry(const Shape& input, const Shape& filters, const NodeDef& node) {
    Geometry geometry = common_geometry(input, filters, node);
    if (input[1] != filters[1] * geometry.groups || filters[0] % geometry.groups != 0) {
        contradiction(node,
                      "the input " + input.str() + " and the filters " + filters.str() +
                          " do not make " + std::to_string(geometry.groups) + " groups");
    }
    const AutoPad mode = auto_pad_of(node);
    explicit_pads(geometry, node);
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        if (mode == AutoPad::Valid) {
            geometry.before[axis] = geometry.after[axis] = 0;
        } else if (mode != AutoPad::NotSet) {
            std::tie(geometry.before[axis], geometry.after[axis]) = same_padding(
                geometry.input[axis], geometry.strides[axis], geometry.span(axis), mode);
        }
        if (geometry.input[axis] + geometry.before[axis] + geometry.after[axis] <
            geometry.span(axis)) {
            contradiction(
                node,
                "the filters " + filters.str() + " do not fit the padded input " + input.str());
        }
    }
    return geometry;
}

// The bias input [M], when given.
template <Element T>
std::optional<Value<T>> bias_of(Context<T>& context, const NodeDef& node, std::size_t outputs) {
    if (!Context<T>::has_input(node, 2)) {
        return std::nullopt;
    }
    const Value<T> bias = context.real_value(node, 2);
    if (bias.shape() != Shape{outputs}) {
        contradiction(node,
                      "the bias " + bias.shape().str() + " must be [" + std::to_string(outputs) +
                          "], one per output channel");
    }
    return bias;
}

bool fits_conv2d(const Geometry& geometry) {
    if (geometry.axes() != 2 || geometry.groups != 1) {
        return false;
    }
    const std::size_t padding = geometry.before[0];
    return geometry.strides[0] == geometry.strides[1] &&
           geometry.dilations[0] == geometry.dilations[1] && geometry.before[1] == padding &&
           geometry.after[0] == padding && geometry.after[1] == padding;
}

// topos::conv2d, with a bias of zeros where none is given (adding +0 changes no sum).
template <Element T>
Value<T> fused_conv2d(Context<T>& context,
                      const Value<T>& input,
                      const Value<T>& filters,
                      const std::optional<Value<T>>& bias,
                      const Geometry& geometry) {
    const Value<T> shift =
        bias ? *bias : context.tape().leaf(Tensor<T>::filled(Shape{filters.shape()[0]}, T(0)));
    return conv2d(
        input, filters, shift, geometry.strides[0], geometry.before[0], geometry.dilations[0]);
}

// patches [R, G * taps] times filters [M, taps...] per group: [R, M].
template <Element T>
Value<T> grouped_product(const Value<T>& patches, const Value<T>& filters, std::size_t groups) {
    const std::size_t outputs = filters.shape()[0];
    const std::size_t taps = filters.shape().elements() / std::max<std::size_t>(outputs, 1);
    const std::size_t rows = patches.shape()[0];
    if (groups == 1) {
        return patches.matmul(filters.reshape(Shape{outputs, taps}).transpose());
    }
    const Value<T> per_group = patches.reshape(Shape{rows, groups, taps}).permute({1, 0, 2});
    const Value<T> matrices =
        filters.reshape(Shape{groups, outputs / groups, taps}).permute({0, 2, 1});
    return per_group.matmul(matrices).permute({1, 0, 2}).reshape(Shape{rows, outputs});
}

// The windows of the padded input as rows: [N * O..., C * K...].
template <Element T>
Value<T> patches_of(const Value<T>& input, const Geometry& geometry) {
    Value<T> windows = input;
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        if (geometry.before[axis] + geometry.after[axis] > 0) {
            windows = windows.pad(2 + axis, geometry.before[axis], geometry.after[axis]);
        }
    }
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        windows = windows.unfold(
            2 + 2 * axis, geometry.kernel[axis], geometry.strides[axis], geometry.dilations[axis]);
    }
    const Shape shape = windows.shape();  // [N, C, O1, K1, O2, K2, ...]
    std::vector<std::size_t> order{0};
    std::size_t rows = shape[0];
    std::size_t columns = shape[1];
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        order.push_back(2 + 2 * axis);
        rows *= shape[2 + 2 * axis];
        columns *= shape[3 + 2 * axis];
    }
    order.push_back(1);
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        order.push_back(3 + 2 * axis);
    }
    return windows.permute(axes_of(order)).reshape(Shape{rows, columns});
}

template <Element T>
Value<T> convolve(const Value<T>& input,
                  const Value<T>& filters,
                  const std::optional<Value<T>>& bias,
                  const Geometry& geometry) {
    Value<T> product = grouped_product(patches_of(input, geometry), filters, geometry.groups);
    if (bias) {
        product = product + *bias;
    }
    const std::size_t axes = geometry.axes();
    std::vector<std::size_t> extents{input.shape()[0]};
    std::vector<std::size_t> order{0, axes + 1};
    for (std::size_t axis = 0; axis < axes; ++axis) {
        extents.push_back(geometry.windows(axis));
        order.push_back(1 + axis);
    }
    extents.push_back(filters.shape()[0]);
    return product.reshape(shape_of_sizes(extents)).permute(axes_of(order));
}

template <Element T>
void record_conv(Context<T>& context, const NodeDef& node) {
    const Value<T> input = context.real_value(node, 0);
    const Value<T> filters = context.real_value(node, 1);
    const Geometry geometry = conv_geometry(input.shape(), filters.shape(), node);
    const auto bias = bias_of(context, node, filters.shape()[0]);
    const Value<T> output = fits_conv2d(geometry)
                                ? fused_conv2d(context, input, filters, bias, geometry)
                                : convolve(input, filters, bias, geometry);
    context.define(node, 0, output, context.type_of(node.inputs[0]));
}

// output_shape's spatial extents (a leading N and C, which some exporters write, are dropped).
std::optional<std::vector<std::size_t>> output_shape_of(const NodeDef& node, std::size_t axes) {
    const auto given = integers_attribute(node, "output_shape");
    if (!given) {
        return std::nullopt;
    }
    const std::size_t count = given->size() == axes + 2 ? axes + 2 : axes;
    const auto extents = per_axis(node, "output_shape", count, 0, 1);
    return std::vector<std::size_t>(extents.end() - static_cast<std::ptrdiff_t>(axes),
                                    extents.end());
}

// The crop that gives each axis the extent output_shape or SAME asks for. An
// extent past every window's reach crops nothing and ends in zeros, as
// output_padding does (ONNX's test_convtranspose_output_shape, onnxruntime).
void crop_to(Geometry& geometry, const std::vector<std::size_t>& extents, AutoPad mode) {
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        const std::size_t reach = geometry.full(axis) + geometry.extra[axis];
        if (extents[axis] > reach) {
            geometry.before[axis] = geometry.after[axis] = 0;
            geometry.extra[axis] = extents[axis] - geometry.full(axis);
            continue;
        }
        std::tie(geometry.before[axis], geometry.after[axis]) =
            split_padding(reach - extents[axis], mode);
    }
}

Geometry transposed_geometry(const Shape& input, const Shape& filters, const NodeDef& node) {
    Geometry geometry = common_geometry(input, filters, node);
    if (filters[0] != input[1] || input[1] % geometry.groups != 0) {
        contradiction(node,
                      "the input " + input.str() + " and the filters " + filters.str() +
                          " do not make " + std::to_string(geometry.groups) + " groups");
    }
    const std::size_t axes = geometry.axes();
    geometry.extra = per_axis(node, "output_padding", axes, 0, 0);
    const AutoPad mode = auto_pad_of(node);
    explicit_pads(geometry, node);
    if (const auto extents = output_shape_of(node, axes)) {
        crop_to(geometry, *extents, mode);
    } else if (mode == AutoPad::SameUpper || mode == AutoPad::SameLower) {
        std::vector<std::size_t> same;
        for (std::size_t axis = 0; axis < axes; ++axis) {
            same.push_back(geometry.input[axis] * geometry.strides[axis]);
        }
        crop_to(geometry, same, mode);
    } else if (mode == AutoPad::Valid) {
        geometry.before.assign(axes, 0);
        geometry.after.assign(axes, 0);
    }
    for (std::size_t axis = 0; axis < axes; ++axis) {
        if (geometry.before[axis] >= geometry.full(axis) ||
            geometry.before[axis] + geometry.after[axis] >=
                geometry.full(axis) + geometry.extra[axis]) {
            contradiction(node, "pads crop away the whole output of the input " + input.str());
        }
    }
    return geometry;
}

// pixels [R, C] times filters [C, M / G, K...] per group: [R, M * K...].
template <Element T>
Value<T> spread_product(const Value<T>& pixels, const Value<T>& filters, std::size_t groups) {
    const std::size_t channels = filters.shape()[0];
    const std::size_t taps = filters.shape().elements() / std::max<std::size_t>(channels, 1);
    if (groups == 1) {
        return pixels.matmul(filters.reshape(Shape{channels, taps}));
    }
    const std::size_t rows = pixels.shape()[0];
    const Value<T> per_group =
        pixels.reshape(Shape{rows, groups, channels / groups}).permute({1, 0, 2});
    const Value<T> matrices = filters.reshape(Shape{groups, channels / groups, taps});
    return per_group.matmul(matrices).permute({1, 0, 2}).reshape(Shape{rows, groups * taps});
}

// Each output window of the input's pixels: [N, M, I1, K1, I2, K2, ...].
template <Element T>
Value<T> output_windows(const Value<T>& input, const Value<T>& filters, const Geometry& geometry) {
    const Shape shape = input.shape();
    const std::size_t axes = geometry.axes();
    std::vector<std::size_t> to_channels_last{0};
    std::vector<std::size_t> extents{shape[0]};
    std::size_t rows = shape[0];
    for (std::size_t axis = 0; axis < axes; ++axis) {
        to_channels_last.push_back(2 + axis);
        extents.push_back(shape[2 + axis]);
        rows *= shape[2 + axis];
    }
    to_channels_last.push_back(1);
    const Value<T> pixels = input.permute(axes_of(to_channels_last)).reshape(Shape{rows, shape[1]});
    const std::size_t outputs = filters.shape()[1] * geometry.groups;
    extents.push_back(outputs);
    extents.insert(extents.end(), geometry.kernel.begin(), geometry.kernel.end());
    std::vector<std::size_t> order{0, axes + 1};
    for (std::size_t axis = 0; axis < axes; ++axis) {
        order.push_back(1 + axis);
        order.push_back(axes + 2 + axis);
    }
    return spread_product(pixels, filters, geometry.groups)
        .reshape(shape_of_sizes(extents))
        .permute(axes_of(order));
}

template <Element T>
Value<T> transposed_convolution(const Value<T>& input,
                                const Value<T>& filters,
                                const Geometry& geometry) {
    Value<T> output = output_windows(input, filters, geometry);
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        output = output.fold(2 + axis,
                             geometry.kernel[axis],
                             geometry.strides[axis],
                             geometry.dilations[axis],
                             geometry.full(axis));
    }
    for (std::size_t axis = 0; axis < geometry.axes(); ++axis) {
        const std::size_t start = geometry.before[axis];
        const std::size_t kept = std::min(geometry.cropped(axis), geometry.full(axis) - start);
        if (start > 0 || kept < geometry.full(axis)) {
            output = output.narrow(2 + axis, start, kept);
        }
        if (kept < geometry.cropped(axis)) {  // output_padding past every window: zeros
            output = output.pad(2 + axis, 0, geometry.cropped(axis) - kept);
        }
    }
    return output;
}

template <Element T>
void record_conv_transpose(Context<T>& context, const NodeDef& node) {
    const Value<T> input = context.real_value(node, 0);
    const Value<T> filters = context.real_value(node, 1);
    const Geometry geometry = transposed_geometry(input.shape(), filters.shape(), node);
    const std::size_t outputs = filters.shape()[1] * geometry.groups;
    Value<T> output = transposed_convolution(input, filters, geometry);
    if (const auto bias = bias_of(context, node, outputs)) {
        std::vector<std::size_t> extents(geometry.axes() + 1, 1);
        extents[0] = outputs;
        output = output + bias->reshape(shape_of_sizes(extents));
    }
    context.define(node, 0, output, context.type_of(node.inputs[0]));
}

}  // namespace

void add_convolution_rules(RuleTable& table) {
    table.add("Conv",
              {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
              [](auto& context, const NodeDef& node) { record_conv(context, node); });
    table.add("ConvTranspose",
              {"auto_pad",
               "dilations",
               "group",
               "kernel_shape",
               "output_padding",
               "output_shape",
               "pads",
               "strides"},
              [](auto& context, const NodeDef& node) { record_conv_transpose(context, node); });
}

}  // namespace topos::onnx::detail
