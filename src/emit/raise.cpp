// Raising elected patterns to named StableHLO operations. Every window is laid
// out so the named operation yields exactly the match's window count: the
// image is sliced to what the windows reach and zero-padded below (the
// matched Pad) and above (up to the last window), since WindowGeometry keeps
// no padding after the image.
#include "emit/raise.hpp"

#include <algorithm>
#include <limits>

namespace topos::detail {
namespace {

// One spatial axis of the padded image the windows read: `low` zeros, the
// first `keep` image elements, `high` zeros; in all, what the last window reaches.
struct AxisFit {
    std::size_t low, keep, high;
};

AxisFit fit_axis(const WindowGeometry& g, std::size_t d) {
    const bool empty = g.count[d] == 0 || g.size[d] == 0;
    const std::size_t reach =
        empty ? 0 : (g.count[d] - 1) * g.step[d] + (g.size[d] - 1) * g.dilation[d] + 1;
    const std::size_t low = std::min(g.pad_before[d], reach);
    const std::size_t keep = std::min(g.extent[d], reach - low);
    return {low, keep, reach - low - keep};
}

// The [N, C, H, W] image sliced to the elements the windows reach, and the
// zero padding each spatial axis still needs.
struct FittedImage {
    HloValue image;
    std::array<std::array<std::size_t, 2>, 2> padding;
};

FittedImage fitted_image(HloBuilder& build, HloValue image, const WindowGeometry& g) {
    FittedImage fitted{image, {}};
    for (std::size_t d = 0; d < 2; ++d) {
        const AxisFit fit = fit_axis(g, d);
        if (fit.keep < g.extent[d]) {
            fitted.image = build.slice(fitted.image, 2 + d, 0, fit.keep, 1);
        }
        fitted.padding[d] = {fit.low, fit.high};
    }
    return fitted;
}

// Forward: the [N, C, H, W] image convolved with the matrix as [C, KH, KW, O]
// filters, giving [N, OH, OW, O], the rows of the root [N*OH*OW, O].
HloValue forward_convolution(HloBuilder& build,
                             const Match& match,
                             const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    const FittedImage fitted = fitted_image(build, build.value_of(match.inputs[0]), g);
    const HloValue filters = build.reshape(build.value_of(match.inputs[1]),
                                           Shape{g.channels, g.size[0], g.size[1], w.columns});
    const ConvolutionLayout layout{
        0, 1, {2, 3}, 0, 3, {1, 2}, 0, 3, {1, 2}, g.step, g.dilation, fitted.padding};
    const HloValue convolved = build.convolution(fitted.image, filters, layout);
    return build.reshape(convolved, build.site().shape);
}

// Transposed (a filter gradient): out[c, kh, kw, o] sums image[n, c, oh*step +
// kh*dilation, ...] * G[n, oh, ow, o] over n, oh, ow, a convolution of the
// image (N as the contracted feature, C as the batch) by G as [N, OH, OW, O],
// whose window steps by the dilation and whose kernel is dilated by the step.
HloValue filter_gradient(HloBuilder& build, const Match& match, const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    const FittedImage fitted = fitted_image(build, build.value_of(match.inputs[0]), g);
    const HloValue gradient = build.reshape(build.value_of(match.inputs[1]),
                                            Shape{g.batch, g.count[0], g.count[1], w.columns});
    const ConvolutionLayout layout{
        1, 0, {2, 3}, 0, 3, {1, 2}, 0, 3, {1, 2}, g.dilation, g.step, fitted.padding};
    const HloValue convolved = build.convolution(fitted.image, gradient, layout);
    return build.reshape(convolved, build.site().shape);
}

// The image zero-padded explicitly (the matched Pad pads with +0, while
// reduce_window would pad with its init value), then each window reduced.
HloValue pooling(HloBuilder& build, const Match& match, const ReduceWindowGeometry& r) {
    const WindowGeometry& g = r.window;
    const FittedImage fitted = fitted_image(build, build.value_of(match.inputs[0]), g);
    HloValue padded = fitted.image;
    for (std::size_t d = 0; d < 2; ++d) {
        if (fitted.padding[d][0] != 0 || fitted.padding[d][1] != 0) {
            padded = build.pad(padded, 2 + d, fitted.padding[d][0], fitted.padding[d][1], 0);
        }
    }
    const ReduceWindowLayout window{{1, 1, g.size[0], g.size[1]},
                                    {1, 1, g.step[0], g.step[1]},
                                    {1, 1, g.dilation[0], g.dilation[1]}};
    if (r.reduction == ReduceWindowGeometry::Reduction::MaximumChain) {
        return build.reduce_window(
            padded, -std::numeric_limits<double>::infinity(), "stablehlo.maximum", window);
    }
    return build.reduce_window(padded, -0.0, "stablehlo.add", window);
}

template <Element T>
std::span<const T> leaf_values(const PlanState<T>& plan, std::uint32_t node) {
    if (plan.network->spec.nodes[node].opcode() != Opcode::Leaf) {
        return {};
    }
    return plan.network->spec.payload(node).data();
}

// The one value every element of a Leaf holds, if it is a Leaf and they agree.
template <Element T>
std::optional<T> uniform_leaf(const PlanState<T>& plan, std::uint32_t node) {
    const std::span<const T> values = leaf_values(plan, node);
    if (values.empty() || !std::all_of(values.begin(), values.end(), [&](T value) {
            return value == values.front();
        })) {
        return std::nullopt;
    }
    return values.front();
}

template <Element T>
bool batch_norm_raises(const PlanState<T>& plan, const Match& match, const BatchNormGeometry& b) {
    if (!uniform_leaf(plan, match.inputs[3])) {
        return false;
    }
    if (!b.training) {
        return true;
    }
    const T per_channel = static_cast<T>(b.shape.elements() / b.shape[1]);
    const auto counts_elements = [&](std::uint32_t node) {
        return uniform_leaf(plan, node) == std::optional<T>(per_channel);
    };
    return counts_elements(match.inputs[4]) && counts_elements(match.inputs[5]);
}

template <Element T>
std::vector<HloValue> batch_norm(HloBuilder& build,
                                 const PlanState<T>& plan,
                                 const Match& match,
                                 const BatchNormGeometry& b) {
    const auto input = [&](std::size_t i) { return build.value_of(match.inputs[i]); };
    const float epsilon = static_cast<float>(*uniform_leaf(plan, match.inputs[3]));
    if (b.training) {
        const BatchNormResults results =
            build.batch_norm_training(input(0), input(1), input(2), epsilon);
        return {results.output, results.mean, results.variance};
    }
    return {build.batch_norm_inference(input(0), input(1), input(2), input(4), input(5), epsilon)};
}

}  // namespace

template <Element T>
bool raises(const PlanState<T>& plan, const Election& election) {
    const Match& match = election.match;
    if (const auto* b = std::get_if<BatchNormGeometry>(&match.geometry)) {
        return batch_norm_raises(plan, match, *b);
    }
    return !std::holds_alternative<MapGeometry>(match.geometry);
}

std::vector<std::uint32_t> raised_operands(const Match& match) {
    const auto* b = std::get_if<BatchNormGeometry>(&match.geometry);
    if (b == nullptr) {
        return match.inputs;
    }
    const std::vector<std::uint32_t>& in = match.inputs;
    if (b->training) {
        return {in[0], in[1], in[2]};
    }
    return {in[0], in[1], in[2], in[4], in[5]};
}

template <Element T>
std::vector<HloValue> raise(HloBuilder& build, const PlanState<T>& plan, const Match& match) {
    if (const auto* w = std::get_if<WindowProductGeometry>(&match.geometry)) {
        return {w->transposed ? filter_gradient(build, match, *w)
                              : forward_convolution(build, match, *w)};
    }
    if (const auto* r = std::get_if<ReduceWindowGeometry>(&match.geometry)) {
        return {pooling(build, match, *r)};
    }
    if (const auto* b = std::get_if<BatchNormGeometry>(&match.geometry)) {
        return batch_norm(build, plan, match, *b);
    }
    build.fail("a Map election has no named StableHLO operation");
}

template bool raises(const PlanState<float>&, const Election&);
template bool raises(const PlanState<double>&, const Election&);
template std::vector<HloValue> raise(HloBuilder&, const PlanState<float>&, const Match&);
template std::vector<HloValue> raise(HloBuilder&, const PlanState<double>&, const Match&);

}  // namespace topos::detail
