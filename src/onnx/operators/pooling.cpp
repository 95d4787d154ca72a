// Pooling: MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool over 1 to
// 3 spatial axes. A window that fits topos::max_pool or average_pool exactly
// (2-D, square, unpadded) records them; any other is composed: the input
// padded, unfolded along each spatial axis and reduced over the window axes.
// Max pooling pads with -infinity, which no maximum picks; average pooling
// pads with zeros and divides each sum by the count of positions it averages.
#include "onnx/context.hpp"
#include "onnx/operators/windows.hpp"
#include "onnx/rules.hpp"
#include <topos/graph/compositions.hpp>
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace topos::onnx::detail {
namespace {

// The windows of one pooling, spatial axis by spatial axis: `before` and
// `after` are the padding the windows may cover, `beyond` the positions
// ceil_mode's last window reaches past it (which no window counts).
struct Windows {
    std::vector<std::size_t> input;
    std::vector<std::size_t> kernel;
    std::vector<std::size_t> strides;
    std::vector<std::size_t> dilations;
    std::vector<std::size_t> before;
    std::vector<std::size_t> after;
    std::vector<std::size_t> beyond;
    std::vector<std::size_t> outputs;

    std::size_t axes() const { return input.size(); }

    std::size_t span(std::size_t axis) const { return (kernel[axis] - 1) * dilations[axis] + 1; }

    std::size_t padded(std::size_t axis) const { return input[axis] + before[axis] + after[axis]; }

    bool unpadded() const {
        for (std::size_t axis = 0; axis < axes(); ++axis) {
            if (before[axis] + after[axis] + beyond[axis] > 0) {
                return false;
            }
        }
        return true;
    }
};

// The padding auto_pad asks for, or the pads attribute's.
void place_padding(Windows& windows, const NodeDef& node) {
    const std::size_t axes = windows.axes();
    const auto pads = per_axis(node, "pads", 2 * axes, 0, 0);
    windows.before.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(axes));
    windows.after.assign(pads.begin() + static_cast<std::ptrdiff_t>(axes), pads.end());
    const AutoPad mode = auto_pad_of(node);
    for (std::size_t axis = 0; mode != AutoPad::NotSet && axis < axes; ++axis) {
        std::tie(windows.before[axis], windows.after[axis]) =
            mode == AutoPad::Valid
                ? std::pair<std::size_t, std::size_t>{0, 0}
                : same_padding(
                      windows.input[axis], windows.strides[axis], windows.span(axis), mode);
    }
}

// How many windows each axis has: floor, or with ceil_mode the last partial
// one too, unless it would start past the input (as ONNX and torch drop it).
void count_windows(Windows& windows, const NodeDef& node, const Shape& input) {
    const bool ceil_mode = integer_attribute(node, "ceil_mode", 0) != 0;
    for (std::size_t axis = 0; axis < windows.axes(); ++axis) {
        const std::size_t padded = windows.padded(axis);
        if (padded < windows.span(axis)) {
            contradiction(node,
                          "a window spanning " + std::to_string(windows.span(axis)) +
                              " positions does not fit the padded input " + input.str());
        }
        const std::size_t room = padded - windows.span(axis);
        const std::size_t stride = windows.strides[axis];
        std::size_t count = room / stride + 1;
        if (ceil_mode && room % stride != 0 &&
            count * stride < windows.input[axis] + windows.before[axis]) {
            ++count;
        }
        windows.outputs.push_back(count);
        const std::size_t reach = (count - 1) * stride + windows.span(axis);
        windows.beyond.push_back(reach > padded ? reach - padded : 0);
    }
}

Windows windows_of(const Shape& input, const NodeDef& node) {
    if (input.rank() < 3) {
        contradiction(node, "the input " + input.str() + " must be [N, C, spatial axes...]");
    }
    const std::size_t axes = input.rank() - 2;
    if (axes > 3) {
        not_handled("pooling over " + std::to_string(axes) +
                    " spatial axes (1 to 3 are composed: the windows take two axes each of "
                    "topos's rank 8)");
    }
    if (!integers_attribute(node, "kernel_shape")) {
        contradiction(node, "attribute kernel_shape is missing");
    }
    Windows windows;
    for (std::size_t axis = 0; axis < axes; ++axis) {
        if (input[2 + axis] == 0) {
            not_handled("an empty spatial axis (the input " + input.str() + ")");
        }
        windows.input.push_back(input[2 + axis]);
    }
    windows.kernel = per_axis(node, "kernel_shape", axes, 1, 1);
    windows.strides = per_axis(node, "strides", axes, 1, 1);
    windows.dilations = per_axis(node, "dilations", axes, 1, 1);
    place_padding(windows, node);
    count_windows(windows, node, input);
    return windows;
}

// Whether topos::max_pool and average_pool compute exactly these windows.
bool fits_square_pool(const Windows& windows) {
    constexpr std::size_t largest_square = 256;  // their limit: one node per tap
    return windows.axes() == 2 && windows.kernel[0] == windows.kernel[1] &&
           windows.kernel[0] <= largest_square && windows.strides[0] == windows.strides[1] &&
           windows.dilations[0] == 1 && windows.dilations[1] == 1 && windows.unpadded();
}

// The row-major elements of the outer product of one factor per axis.
std::vector<double> outer_product(const std::vector<std::vector<double>>& factors) {
    std::vector<double> product{1.0};
    for (const auto& factor : factors) {
        std::vector<double> next;
        next.reserve(product.size() * factor.size());
        for (const double left : product) {
            for (const double right : factor) {
                next.push_back(left * right);
            }
        }
        product = std::move(next);
    }
    return product;
}

template <Element T>
Value<T> leaf_of(Context<T>& context,
                 const std::vector<std::size_t>& extents,
                 const std::vector<double>& values) {
    std::vector<T> elements;
    elements.reserve(values.size());
    for (const double value : values) {
        elements.push_back(static_cast<T>(value));
    }
    return context.tape().leaf(Tensor<T>(shape_of_sizes(extents), std::span<const T>(elements)));
}

// The input zero-padded as far as the windows reach.
template <Element T>
Value<T> zero_padded(const Value<T>& input, const Windows& windows) {
    Value<T> padded = input;
    for (std::size_t axis = 0; axis < windows.axes(); ++axis) {
        const std::size_t after = windows.after[axis] + windows.beyond[axis];
        if (windows.before[axis] + after > 0) {
            padded = padded.pad(2 + axis, windows.before[axis], after);
        }
    }
    return padded;
}

// The input padded with -infinity: the zeros of the padding replaced through
// a mask of where the input's own elements lie.
template <Element T>
Value<T> infinity_padded(Context<T>& context, const Value<T>& input, const Windows& windows) {
    if (windows.unpadded()) {
        return input;
    }
    std::vector<std::vector<double>> inside;
    std::vector<std::size_t> extents;
    for (std::size_t axis = 0; axis < windows.axes(); ++axis) {
        const std::size_t extent = windows.padded(axis) + windows.beyond[axis];
        std::vector<double> factor(extent, 0.0);
        std::fill_n(factor.begin() + static_cast<std::ptrdiff_t>(windows.before[axis]),
                    windows.input[axis],
                    1.0);
        inside.push_back(std::move(factor));
        extents.push_back(extent);
    }
    const Value<T> mask = leaf_of(context, extents, outer_product(inside));
    return where(mask,
                 zero_padded(input, windows),
                 context.scalar(-std::numeric_limits<double>::infinity()));
}

// Unfolds each spatial axis: [N, C, O1, K1, O2, K2, ...], and the window axes.
template <Element T>
Value<T> unfolded(const Value<T>& padded, const Windows& windows, std::vector<std::size_t>& taps) {
    Value<T> result = padded;
    for (std::size_t axis = 0; axis < windows.axes(); ++axis) {
        result = result.unfold(
            2 + 2 * axis, windows.kernel[axis], windows.strides[axis], windows.dilations[axis]);
        taps.push_back(3 + 2 * axis);
    }
    return result;
}

template <Element T>
void record_max_pool(Context<T>& context, const NodeDef& node) {
    if (node.outputs.size() > 1 && !node.outputs[1].empty()) {
        not_handled("the output Indices (the flattened positions of the maxima)");
    }
    const Value<T> input = context.value(node, 0);
    const Windows windows = windows_of(input.shape(), node);
    Value<T> output = input;
    if (fits_square_pool(windows)) {
        output = max_pool(input, windows.kernel[0], windows.strides[0]);
    } else {
        std::vector<std::size_t> taps;
        output =
            unfolded(infinity_padded(context, input, windows), windows, taps).max(axes_of(taps));
    }
    context.define(node, 0, output, context.type_of(node.inputs[0]));
}

// How many taps of each window along one axis land in [low, high).
std::vector<double> taps_within(const Windows& windows,
                                std::size_t axis,
                                std::size_t low,
                                std::size_t high) {
    std::vector<double> counts;
    for (std::size_t window = 0; window < windows.outputs[axis]; ++window) {
        std::size_t count = 0;
        for (std::size_t tap = 0; tap < windows.kernel[axis]; ++tap) {
            const std::size_t position =
                window * windows.strides[axis] + tap * windows.dilations[axis];
            count += position >= low && position < high ? 1 : 0;
        }
        counts.push_back(static_cast<double>(count));
    }
    return counts;
}

// What each window's sum is divided by: its taps on the input's own elements,
// or with count_include_pad on the padding too (never past it, in ceil_mode).
template <Element T>
Value<T> divisors(Context<T>& context, const Windows& windows, bool count_padding) {
    std::vector<std::vector<double>> factors;
    for (std::size_t axis = 0; axis < windows.axes(); ++axis) {
        const std::size_t low = count_padding ? 0 : windows.before[axis];
        const std::size_t high =
            count_padding ? windows.padded(axis) : windows.before[axis] + windows.input[axis];
        factors.push_back(taps_within(windows, axis, low, high));
    }
    return leaf_of(context, windows.outputs, outer_product(factors));
}

template <Element T>
void record_average_pool(Context<T>& context, const NodeDef& node) {
    const Value<T> input = context.real_value(node, 0);
    const Windows windows = windows_of(input.shape(), node);
    const bool count_padding = integer_attribute(node, "count_include_pad", 0) != 0;
    Value<T> output = input;
    if (fits_square_pool(windows)) {
        output = average_pool(input, windows.kernel[0], windows.strides[0]);
    } else {
        std::vector<std::size_t> taps;
        const Value<T> sums =
            unfolded(zero_padded(input, windows), windows, taps).sum(axes_of(taps));
        output = sums / divisors(context, windows, count_padding);
    }
    context.define(node, 0, output, context.type_of(node.inputs[0]));
}

// The spatial axes 2, 3, ... of a global pooling's input.
Axes spatial_axes(const Shape& input, const NodeDef& node) {
    if (input.rank() < 2) {
        contradiction(node, "the input " + input.str() + " must be [N, C, spatial axes...]");
    }
    std::vector<std::size_t> axes;
    for (std::size_t axis = 2; axis < input.rank(); ++axis) {
        axes.push_back(axis);
    }
    return axes_of(axes);
}

}  // namespace

void add_pooling_rules(RuleTable& table) {
    // storage_order only orders the Indices output, which is refused.
    table.add(
        "MaxPool",
        {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"},
        [](auto& context, const NodeDef& node) { record_max_pool(context, node); });
    table.add("AveragePool",
              {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"},
              [](auto& context, const NodeDef& node) { record_average_pool(context, node); });
    table.add(
        "GlobalAveragePool",
        {},
        [](auto& context, const NodeDef& node) {
            const auto input = context.real_value(node, 0);
            context.define(node,
                           0,
                           input.mean(spatial_axes(input.shape(), node), true),
                           context.type_of(node.inputs.at(0)));
        },
        1);
    table.add(
        "GlobalMaxPool",
        {},
        [](auto& context, const NodeDef& node) {
            const auto input = context.value(node, 0);
            context.define(node,
                           0,
                           input.max(spatial_axes(input.shape(), node), true),
                           context.type_of(node.inputs.at(0)));
        },
        1);
}

}  // namespace topos::onnx::detail
