// Resampling: Resize (opsets 10 to 17) and Upsample (7 and 9), to extents
// known while recording (constant scales or sizes). Axes are resampled one
// after another, the last first, as ONNX's reference does; every source
// position and weight is computed at import. Nearest gathers exactly; linear
// and cubic gather their taps along the axis and sum them with constant
// weights; tf_crop_and_resize puts extrapolation_value outside the input.
#include "onnx/context.hpp"
#include "onnx/operators/moves.hpp"
#include "onnx/rules.hpp"
#include <topos/graph/node.hpp>
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace topos::onnx::detail {
namespace {

using Extents = std::vector<std::int64_t>;
using Positions = std::vector<std::int64_t>;

enum class Interpolation : std::uint8_t {
    Nearest,
    Linear,
    Cubic
};

// What a node asks for, its attributes read as its opset defines them.
struct Request {
    Interpolation interpolation = Interpolation::Nearest;
    std::string coordinates = "asymmetric";  // coordinate_transformation_mode
    std::string rounding = "simple";         // nearest_mode; "simple" before Resize-11
    double cubic_a = -0.75;
    bool exclude_outside = false;
    double extrapolation = 0;
};

// One axis resampled: its extents before and after, its scale, the resized
// length its coordinates are mapped with (scale * input where scales are
// given, as ONNX's reference computes it) and its region of interest.
struct Span {
    std::int64_t input = 0;
    std::int64_t output = 0;
    double scale = 1;
    double length = 0;
    double roi_start = 0;
    double roi_end = 1;
};

// The taps of one axis: for each output position, `count` source positions
// (clamped into the input) with their weights, and whether the position lies
// outside the input (tf_crop_and_resize, which gives it extrapolation_value).
struct Taps {
    std::size_t count = 0;
    Positions sources;
    std::vector<double> weights;
    std::vector<bool> outside;
};

bool is_one_of(const std::string& text, std::initializer_list<const char*> names) {
    return std::find(names.begin(), names.end(), text) != names.end();
}

// ---- What the node asks for.

Interpolation interpolation_of(const NodeDef& node, bool cubic_allowed) {
    const std::string mode = text_attribute(node, "mode", "nearest");
    if (mode == "nearest") {
        return Interpolation::Nearest;
    }
    if (mode == "linear") {
        return Interpolation::Linear;
    }
    if (mode == "cubic" && cubic_allowed) {
        return Interpolation::Cubic;
    }
    contradiction(
        node, "mode=" + mode + " is none of nearest, linear" + (cubic_allowed ? ", cubic" : ""));
}

// Upsample and Resize-10 map coordinates asymmetrically and round down when
// enlarging, up when shrinking (as onnxruntime, and ONNX's tests of Resize-10).
Request request_of(const NodeDef& node, std::int64_t opset) {
    const bool resize_11 = node.operator_type == "Resize" && opset >= 11;
    Request request;
    request.interpolation = interpolation_of(node, resize_11);
    if (!resize_11) {
        return request;
    }
    request.coordinates = text_attribute(node, "coordinate_transformation_mode", "half_pixel");
    request.rounding = text_attribute(node, "nearest_mode", "round_prefer_floor");
    request.cubic_a = real_attribute(node, "cubic_coeff_a", -0.75);
    request.exclude_outside = integer_attribute(node, "exclude_outside", 0) != 0;
    request.extrapolation = real_attribute(node, "extrapolation_value", 0.0);
    if (!is_one_of(request.coordinates,
                   {"half_pixel",
                    "pytorch_half_pixel",
                    "align_corners",
                    "asymmetric",
                    "tf_half_pixel_for_nn",
                    "tf_crop_and_resize"})) {
        contradiction(node,
                      "coordinate_transformation_mode=" + request.coordinates +
                          " is none of half_pixel, pytorch_half_pixel, align_corners, asymmetric, "
                          "tf_half_pixel_for_nn, tf_crop_and_resize");
    }
    if (!is_one_of(request.rounding,
                   {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})) {
        contradiction(node,
                      "nearest_mode=" + request.rounding +
                          " is none of round_prefer_floor, round_prefer_ceil, floor, ceil");
    }
    return request;
}

// ---- The spans of the axes.

// The most positions one axis is resampled to.
constexpr auto largest_resized_extent = static_cast<double>(largest_folded_constant);

std::vector<Span> spans_of_scales(const Extents& extents,
                                  const std::vector<double>& scales,
                                  const NodeDef& node) {
    if (scales.size() != extents.size()) {
        contradiction(node,
                      std::to_string(scales.size()) + " scales for an input of rank " +
                          std::to_string(extents.size()));
    }
    std::vector<Span> spans;
    for (std::size_t axis = 0; axis < extents.size(); ++axis) {
        if (!(scales[axis] > 0)) {
            contradiction(node, "the scale " + std::to_string(scales[axis]) + " is not positive");
        }
        Span span;
        span.input = extents[axis];
        span.scale = scales[axis];
        span.length = span.scale * static_cast<double>(span.input);
        if (span.length > largest_resized_extent) {
            not_handled("an axis resized to more than 2^26 positions");
        }
        span.output = static_cast<std::int64_t>(std::floor(span.length));
        spans.push_back(span);
    }
    return spans;
}

std::vector<Span> spans_of_sizes(const Extents& extents,
                                 const std::vector<std::int64_t>& sizes,
                                 const NodeDef& node) {
    if (sizes.size() != extents.size()) {
        contradiction(node,
                      std::to_string(sizes.size()) + " sizes for an input of rank " +
                          std::to_string(extents.size()));
    }
    std::vector<Span> spans;
    for (std::size_t axis = 0; axis < extents.size(); ++axis) {
        const std::int64_t size = sizes[axis];
        if (size < 0 || (extents[axis] == 0 && size != 0)) {
            contradiction(node,
                          "the size " + std::to_string(size) + " for an axis of extent " +
                              std::to_string(extents[axis]));
        }
        Span span;
        span.input = extents[axis];
        span.output = size;
        span.length = static_cast<double>(size);
        span.scale = span.input == 0 ? 1.0 : span.length / static_cast<double>(span.input);
        spans.push_back(span);
    }
    return spans;
}

// roi = [starts..., ends...], in the input's normalized coordinates.
void place_roi(std::vector<Span>& spans, const std::vector<double>& roi, const NodeDef& node) {
    if (roi.size() != 2 * spans.size()) {
        contradiction(node,
                      "roi holds " + std::to_string(roi.size()) + " values for an input of rank " +
                          std::to_string(spans.size()));
    }
    for (std::size_t axis = 0; axis < spans.size(); ++axis) {
        spans[axis].roi_start = roi[axis];
        spans[axis].roi_end = roi[spans.size() + axis];
    }
}

// Whether input `index` is given and holds elements (an empty one stands for none).
template <Element T>
bool holds_elements(const Context<T>& context, const NodeDef& node, std::size_t index) {
    return Context<T>::has_input(node, index) &&
           context.shape_of(node.inputs[index]).elements() > 0;
}

template <Element T>
std::vector<Span> resize_spans(const Context<T>& context,
                               const NodeDef& node,
                               const Request& request,
                               const Extents& extents) {
    if (context.opset() < 11) {
        return spans_of_scales(extents, context.constant(node, 1).as_reals(), node);
    }
    const bool scales = holds_elements(context, node, 2);
    if (scales == holds_elements(context, node, 3)) {
        contradiction(node,
                      scales ? "gives both scales and sizes" : "gives neither scales nor sizes");
    }
    std::vector<Span> spans =
        scales ? spans_of_scales(extents, context.constant(node, 2).as_reals(), node)
               : spans_of_sizes(extents, context.constant(node, 3).as_integers(), node);
    if (request.coordinates == "tf_crop_and_resize") {
        place_roi(spans, context.constant(node, 1).as_reals(), node);
    }
    return spans;
}

template <Element T>
std::vector<Span> upsample_spans(const Context<T>& context,
                                 const NodeDef& node,
                                 const Extents& extents) {
    if (context.opset() >= 9) {
        return spans_of_scales(extents, context.constant(node, 1).as_reals(), node);
    }
    const AttributeDef* scales = node.attribute("scales");
    if (scales == nullptr || scales->kind != AttributeDef::Kind::Floats) {
        contradiction(node, "lacks its attribute scales (floats)");
    }
    return spans_of_scales(extents, scales->reals, node);
}

// ---- Source positions and weights, as ONNX's reference computes them.

// The position of the input an output position maps to. pytorch_half_pixel
// maps a length of 1 to 0 as the specification and onnxruntime do (ONNX's
// reference takes -0.5, which only cubic tells apart); tf_half_pixel_for_nn,
// Resize-11's, is read at any opset, as onnxruntime reads it.
double original_coordinate(const Request& request, const Span& span, std::int64_t resized) {
    const auto x = static_cast<double>(resized);
    const auto last = static_cast<double>(span.input - 1);
    const std::string& mode = request.coordinates;
    if (mode == "align_corners") {
        return span.length > 1 ? x * last / (span.length - 1) : 0.0;
    }
    if (mode == "asymmetric") {
        return x / span.scale;
    }
    if (mode == "tf_half_pixel_for_nn") {
        return (x + 0.5) / span.scale;
    }
    if (mode == "tf_crop_and_resize") {
        const double extent = span.roi_end - span.roi_start;
        const double offset =
            span.length > 1 ? x * extent * last / (span.length - 1) : extent * last / 2;
        return offset + span.roi_start * last;
    }
    if (mode == "pytorch_half_pixel" && !(span.length > 1)) {
        return 0.0;
    }
    return (x + 0.5) / span.scale - 0.5;
}

// The `count` positions of the edge-padded input nearest to `x` (ties to the
// lower one), ascending, unclamped: they reach past the input's edges.
Positions neighbourhood(double x, std::size_t count, std::int64_t input) {
    const auto pad = static_cast<std::int64_t>((count + 1) / 2);
    const std::int64_t limit = input + 2 * pad;
    const double padded = x + static_cast<double>(pad);
    const auto centre = static_cast<std::int64_t>(
        std::clamp(std::floor(padded), 0.0, static_cast<double>(limit - 1)));
    const auto reach = static_cast<std::int64_t>(count);
    Positions candidates;
    for (std::int64_t at = std::max<std::int64_t>(0, centre - reach);
         at <= std::min(limit - 1, centre + reach);
         ++at) {
        candidates.push_back(at);
    }
    std::stable_sort(candidates.begin(), candidates.end(), [&](std::int64_t a, std::int64_t b) {
        return std::abs(padded - static_cast<double>(a)) <
               std::abs(padded - static_cast<double>(b));
    });
    candidates.resize(count);
    std::sort(candidates.begin(), candidates.end());
    for (std::int64_t& candidate : candidates) {
        candidate -= pad;
    }
    return candidates;
}

std::vector<double> cubic_coefficients(double ratio, double a) {
    const double before = ratio + 1;
    const double after = 1 - ratio;
    const double beyond = after + 1;
    return {((a * before - 5 * a) * before + 8 * a) * before - 4 * a,
            ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
            ((a + 2) * after - (a + 3)) * after * after + 1,
            ((a * beyond - 5 * a) * beyond + 8 * a) * beyond - 4 * a};
}

// Nearest picks the lower or the upper of two neighbours; "simple" (before
// Resize-11) rounds down when enlarging and up when shrinking.
std::vector<double> nearest_coefficients(double ratio, const Request& request, const Span& span) {
    std::string rounding = request.rounding;
    if (rounding == "simple") {
        rounding = span.scale < 1 ? "ceil" : "floor";
    }
    const bool upper = rounding == "round_prefer_floor"  ? ratio > 0.5
                       : rounding == "round_prefer_ceil" ? ratio >= 0.5
                                                         : rounding == "ceil";
    return upper ? std::vector<double>{0, 1} : std::vector<double>{1, 0};
}

// The weights of the neighbourhood of `original`: its fraction past the lower
// neighbour, 1 where it is whole (so that the upper neighbour is itself).
std::vector<double> coefficients(const Request& request, const Span& span, double original) {
    const double whole = std::floor(original);
    const double ratio = original == whole ? 1.0 : original - whole;
    switch (request.interpolation) {
        case Interpolation::Nearest:
            return original == whole ? std::vector<double>{0, 1}
                                     : nearest_coefficients(ratio, request, span);
        case Interpolation::Linear:
            return {1 - ratio, ratio};
        case Interpolation::Cubic:
            break;
    }
    return cubic_coefficients(ratio, request.cubic_a);
}

// exclude_outside: the weights of positions past the edges dropped, the rest
// renormalized (linear and cubic: a nearest position is taken whole).
void exclude_outside(std::vector<double>& weights, const Positions& positions, std::int64_t input) {
    double total = 0;
    for (std::size_t tap = 0; tap < weights.size(); ++tap) {
        if (positions[tap] < 0 || positions[tap] >= input) {
            weights[tap] = 0;
        }
        total += weights[tap];
    }
    for (double& weight : weights) {
        weight = total != 0 ? weight / total : weight;
    }
}

Taps taps_of(const Request& request, const Span& span) {
    Taps taps;
    taps.count = request.interpolation == Interpolation::Cubic ? 4 : 2;
    (void)folded_elements({span.output, static_cast<std::int64_t>(taps.count)});
    const bool cropped = request.coordinates == "tf_crop_and_resize";
    for (std::int64_t resized = 0; resized < span.output; ++resized) {
        const double original = original_coordinate(request, span, resized);
        const bool outside =
            cropped && (original < 0 || original > static_cast<double>(span.input - 1));
        std::vector<double> weights =
            outside ? std::vector<double>(taps.count, 0.0) : coefficients(request, span, original);
        const Positions positions = neighbourhood(original, taps.count, span.input);
        if (request.exclude_outside && request.interpolation != Interpolation::Nearest) {
            exclude_outside(weights, positions, span.input);
        }
        for (std::size_t tap = 0; tap < taps.count; ++tap) {
            taps.sources.push_back(std::clamp<std::int64_t>(positions[tap], 0, span.input - 1));
            taps.weights.push_back(weights[tap]);
        }
        taps.outside.push_back(outside);
    }
    return taps;
}

// The one source each output position takes whole, where each takes one
// (nearest always; linear and cubic where the positions fall on the input's):
// a gather, exact, which reads no neighbour weighted 0.
std::optional<Positions> picks_of(const Taps& taps) {
    Positions picks;
    for (std::size_t row = 0; row < taps.outside.size(); ++row) {
        std::optional<std::int64_t> picked;
        for (std::size_t tap = row * taps.count; tap < (row + 1) * taps.count; ++tap) {
            if (taps.weights[tap] == 0) {
                continue;
            }
            if (taps.weights[tap] != 1 || picked) {
                return std::nullopt;
            }
            picked = taps.sources[tap];
        }
        if (!picked && !taps.outside[row]) {
            return std::nullopt;
        }
        picks.push_back(picked.value_or(0));
    }
    return picks;
}

bool is_identity(const Taps& taps, const std::optional<Positions>& picks) {
    if (!picks || std::find(taps.outside.begin(), taps.outside.end(), true) != taps.outside.end()) {
        return false;
    }
    for (std::size_t row = 0; row < picks->size(); ++row) {
        if ((*picks)[row] != static_cast<std::int64_t>(row)) {
            return false;
        }
    }
    return true;
}

// ---- Recording.

template <Element T>
Value<T> leaf_of(const Value<T>& beside,
                 DataType type,
                 Extents extents,
                 std::vector<double> values) {
    return beside.tape().leaf(
        tensor_of<T>(Constant::of_reals(type, std::move(extents), std::move(values))));
}

// Rows of `rows` ([input, outer, inner]) resampled: [output, outer, inner].
template <Element T>
Value<T> resampled_rows(const Value<T>& rows,
                        const Taps& taps,
                        const std::optional<Positions>& picks) {
    if (moves::holds_indices(rows)) {
        not_handled(
            "resampling integers computed at run time (input 0): topos carries them as indices, "
            "and gathers from reals only");
    }
    const auto output = static_cast<std::int64_t>(taps.outside.size());
    if (picks) {
        Constant positions = Constant::of_integers(*picks);
        return gather(rows, rows.tape().indices(tensor_of<T>(positions)));
    }
    const auto count = static_cast<std::int64_t>(taps.count);
    Constant positions = Constant::of_integers(taps.sources);
    positions.extents = {output, count};
    const Value<T> gathered = gather(rows, rows.tape().indices(tensor_of<T>(positions)));
    const Value<T> weights = leaf_of(rows, DataType::Double, {output, count, 1, 1}, taps.weights);
    return (gathered * weights).sum(1);
}

template <Element T>
Value<T> extrapolated(const Value<T>& resampled, const Taps& taps, double extrapolation) {
    if (std::find(taps.outside.begin(), taps.outside.end(), true) == taps.outside.end()) {
        return resampled;
    }
    const std::vector<double> mask(taps.outside.begin(), taps.outside.end());
    const auto output = static_cast<std::int64_t>(mask.size());
    return where(leaf_of(resampled, DataType::Bool, {output, 1, 1}, mask),
                 leaf_of(resampled, DataType::Double, {}, {extrapolation}),
                 resampled);
}

std::size_t product(const Shape& shape, std::size_t from, std::size_t to) {
    std::size_t result = 1;
    for (std::size_t axis = from; axis < to; ++axis) {
        result *= shape[axis];
    }
    return result;
}

// One axis resampled: viewed as [outer, input, inner], its rows brought to
// the front, gathered and weighted, and put back.
template <Element T>
Value<T> resampled_along(const Value<T>& data,
                         std::size_t axis,
                         const Span& span,
                         const Request& request) {
    const Taps taps = taps_of(request, span);
    const std::optional<Positions> picks = picks_of(taps);
    if (span.output == span.input && is_identity(taps, picks)) {
        return data;
    }
    if (span.output == 0) {
        return data.narrow(axis, 0, 0);
    }
    const Shape shape = data.shape();
    const std::size_t outer = product(shape, 0, axis);
    const std::size_t inner = product(shape, axis + 1, shape.rank());
    const auto input = static_cast<std::size_t>(span.input);
    const Value<T> rows = outer == 1 ? data.reshape(Shape{input, 1, inner})
                                     : data.reshape(Shape{outer, input, inner}).transpose(0, 1);
    const Value<T> resampled =
        extrapolated(resampled_rows(rows, taps, picks), taps, request.extrapolation);
    Extents extents = extents_of_shape(shape);
    extents[axis] = span.output;
    return (outer == 1 ? resampled : resampled.transpose(0, 1)).reshape(shape_of_extents(extents));
}

template <Element T>
void record_resampling(Context<T>& context,
                       const NodeDef& node,
                       const Request& request,
                       const std::vector<Span>& spans) {
    Value<T> data = request.interpolation == Interpolation::Nearest ? context.carried_value(node, 0)
                                                                    : context.real_value(node, 0);
    for (std::size_t axis = spans.size(); axis-- > 0;) {
        data = resampled_along(data, axis, spans[axis], request);
    }
    context.define(node, 0, data, context.type_of(node.inputs[0]));
}

template <Element T>
Extents input_extents(const Context<T>& context, const NodeDef& node) {
    if (!Context<T>::has_input(node, 0)) {
        contradiction(node, "lacks its input 0");
    }
    return extents_of_shape(context.shape_of(node.inputs[0]));
}

template <Element T>
void record_resize(Context<T>& context, const NodeDef& node) {
    const Request request = request_of(node, context.opset());
    const Extents extents = input_extents(context, node);
    record_resampling(context, node, request, resize_spans(context, node, request, extents));
}

template <Element T>
void record_upsample(Context<T>& context, const NodeDef& node) {
    const Request request = request_of(node, context.opset());
    const Extents extents = input_extents(context, node);
    record_resampling(context, node, request, upsample_spans(context, node, extents));
}

}  // namespace

void add_resize_rules(RuleTable& table) {
    table.add(
        "Resize",
        {"mode",
         "coordinate_transformation_mode",
         "cubic_coeff_a",
         "exclude_outside",
         "extrapolation_value",
         "nearest_mode"},
        [](auto& context, const NodeDef& node) { record_resize(context, node); },
        10);
    table.add(
        "Upsample",
        {"mode", "scales"},
        [](auto& context, const NodeDef& node) { record_upsample(context, node); },
        7);
}

}  // namespace topos::onnx::detail
