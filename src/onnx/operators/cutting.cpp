// Cutting: the operators that join, cut or pad along axes (Concat, Split,
// Slice, Pad). Each is written once over its data, a recorded value or an
// integer constant (moves.hpp): the same steps record the one and fold the
// other (the shape arithmetic of exported models).
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/operators/moves.hpp"
#include "onnx/rules.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace topos::onnx::detail {
namespace {

using namespace moves;

// ---- Concat and Split.

// The operands of a join as values of one kind: integer constants are recorded
// as indices where the other operands hold indices, as reals otherwise.
template <Element T>
std::vector<Value<T>> joined_operands(Context<T>& context, const NodeDef& node) {
    bool indices = false;
    bool reals = false;
    for (std::size_t index = 0; index < node.inputs.size(); ++index) {
        if (!context.is_constant(node.inputs[index])) {
            (holds_indices(context.carried_value(node, index)) ? indices : reals) = true;
        }
    }
    if (indices && reals) {
        not_handled("joining integer inputs (carried as indices) with integers computed as reals");
    }
    std::vector<Value<T>> operands;
    for (std::size_t index = 0; index < node.inputs.size(); ++index) {
        const bool constant = context.is_constant(node.inputs[index]);
        operands.push_back(constant && indices ? context.index_value(node, index)
                                               : context.carried_value(node, index));
    }
    return operands;
}

template <Element T>
void record_concat(Context<T>& context, const NodeDef& node) {
    if (node.inputs.empty() || (node.attribute("axis") == nullptr && context.opset() >= 4)) {
        contradiction(node, "needs inputs and an axis");
    }
    const std::int64_t axis = integer_attribute(node, "axis", 1);  // its default before opset 4
    const std::size_t rank = input_extents(context, node, 0).size();
    if (integer_constants(context, node)) {
        std::vector<Constant> parts;
        for (std::size_t index = 0; index < node.inputs.size(); ++index) {
            parts.push_back(context.constant(node, index));
        }
        context.define(node, 0, joined(parts, axis_in(axis, rank, node), node));
        return;
    }
    context.define(node,
                   0,
                   concat(joined_operands(context, node), axis_in(axis, rank, node)),
                   context.type_of(node.inputs[0]));
}

// The extents of Split's parts along the axis.
template <Element T>
Extents split_parts(const Context<T>& context, const NodeDef& node, std::int64_t extent) {
    const auto outputs = static_cast<std::int64_t>(node.outputs.size());
    const auto given = attribute_or_input(context, node, "split", 1, 13);
    if (!given) {
        if (outputs == 0 || extent % outputs != 0) {
            contradiction(node,
                          "cannot split an axis of " + std::to_string(extent) + " into " +
                              std::to_string(outputs) + " equal parts");
        }
        return Extents(static_cast<std::size_t>(outputs), extent / outputs);
    }
    std::int64_t total = 0;
    bool negative = false;
    for (std::int64_t part : *given) {
        total += part;
        negative = negative || part < 0;
    }
    if (static_cast<std::int64_t>(given->size()) != outputs || total != extent || negative) {
        contradiction(node,
                      "split " + listed(*given) + " does not cut an axis of " +
                          std::to_string(extent) + " into " + std::to_string(outputs) + " parts");
    }
    return *given;
}

template <Element T>
void record_split(Context<T>& context, const NodeDef& node) {
    const Extents extents = input_extents(context, node, 0);
    const std::size_t axis = axis_in(integer_attribute(node, "axis", 0), extents.size(), node);
    const Extents parts = split_parts(context, node, extents[axis]);
    std::int64_t start = 0;
    for (std::size_t output = 0; output < parts.size(); ++output) {
        define_moved(context, node, output, [&](const auto& data) {
            return taken(data, axis, range_of(start, parts[output]));
        });
        start += parts[output];
    }
}

// ---- Slice.

// The positions start, start + step, ... before end, with ONNX's wrapping and clamping.
Positions slice_positions(std::int64_t start,
                          std::int64_t end,
                          std::int64_t step,
                          std::int64_t extent) {
    start = start < 0 ? start + extent : start;
    end = end < 0 ? end + extent : end;
    // A longer step reads one position all the same, and cannot overflow.
    step = std::clamp(step, -extent - 1, extent + 1);
    Positions positions;
    if (step > 0) {
        start = std::clamp<std::int64_t>(start, 0, extent);
        end = std::clamp<std::int64_t>(end, 0, extent);
        for (std::int64_t position = start; position < end; position += step) {
            positions.push_back(position);
        }
    } else if (extent > 0) {
        start = std::clamp<std::int64_t>(start, 0, extent - 1);
        end = std::clamp<std::int64_t>(end, -1, extent - 1);
        for (std::int64_t position = start; position > end; position += step) {
            positions.push_back(position);
        }
    }
    return positions;
}

struct SliceArguments {
    Extents starts;
    Extents ends;
    std::optional<Extents> axes;
    std::optional<Extents> steps;
};

template <Element T>
SliceArguments slice_arguments(const Context<T>& context, const NodeDef& node) {
    if (context.opset() < 10) {
        if (node.inputs.size() > 1) {
            contradiction(node, "takes starts, ends and axes as attributes before opset 10");
        }
        return {required(integers_attribute(node, "starts"), node, "starts"),
                required(integers_attribute(node, "ends"), node, "ends"),
                integers_attribute(node, "axes"),
                std::nullopt};
    }
    if (!node.attributes.empty()) {
        contradiction(node, "takes starts, ends and axes as inputs from opset 10");
    }
    auto optional_input = [&](std::size_t index) -> std::optional<Extents> {
        if (!Context<T>::has_input(node, index)) {
            return std::nullopt;
        }
        return context.constant(node, index).as_integers();
    };
    return {context.constant(node, 1).as_integers(),
            context.constant(node, 2).as_integers(),
            optional_input(3),
            optional_input(4)};
}

// The positions each sliced axis keeps.
std::vector<std::pair<std::size_t, Positions>> slice_plan(const SliceArguments& arguments,
                                                          const Extents& extents,
                                                          const NodeDef& node) {
    const std::size_t count = arguments.starts.size();
    const Extents axes = arguments.axes.value_or(range_of(0, static_cast<std::int64_t>(count)));
    const Extents steps = arguments.steps.value_or(Extents(count, 1));
    if (arguments.ends.size() != count || axes.size() != count || steps.size() != count) {
        contradiction(node, "starts, ends, axes and steps differ in length");
    }
    std::vector<std::pair<std::size_t, Positions>> plan;
    std::vector<bool> seen(extents.size(), false);
    for (std::size_t index = 0; index < count; ++index) {
        const std::size_t axis = axis_in(axes[index], extents.size(), node);
        if (seen[axis] || steps[index] == 0) {
            contradiction(node,
                          "slices axis " + std::to_string(axis) + " twice, or by a step of 0");
        }
        seen[axis] = true;
        plan.emplace_back(
            axis,
            slice_positions(
                arguments.starts[index], arguments.ends[index], steps[index], extents[axis]));
    }
    return plan;
}

template <Element T>
void record_slice(Context<T>& context, const NodeDef& node) {
    const auto plan =
        slice_plan(slice_arguments(context, node), input_extents(context, node, 0), node);
    define_moved(context, node, 0, [&](const auto& data) {
        auto result = data;
        for (const auto& [axis, positions] : plan) {
            result = taken(result, axis, positions);
        }
        return result;
    });
}

// ---- Pad.

struct PadArguments {
    Extents pads;
    std::string mode;
    double fill = 0;
};

template <Element T>
PadArguments pad_arguments(const Context<T>& context, const NodeDef& node) {
    PadArguments arguments;
    arguments.mode = text_attribute(node, "mode", "constant");
    if (context.opset() < 11) {
        arguments.pads = required(integers_attribute(node, "pads"), node, "pads");
        arguments.fill = real_attribute(node, "value", 0);
        return arguments;
    }
    if (node.attribute("pads") != nullptr || node.attribute("value") != nullptr) {
        contradiction(node, "takes pads and constant_value as inputs from opset 11");
    }
    arguments.pads = context.constant(node, 1).as_integers();
    if (Context<T>::has_input(node, 2)) {
        const auto fill = context.constant(node, 2).as_reals();
        if (fill.size() != 1) {
            contradiction(node, "constant_value must hold one element");
        }
        arguments.fill = fill.front();
    }
    return arguments;
}

// The source of each position of an axis of `extent` padded by `before` and
// `after` as numpy's edge and reflect modes read it.
Positions padding_sources(const std::string& mode,
                          std::int64_t extent,
                          std::int64_t before,
                          std::int64_t after) {
    Positions positions;
    const std::int64_t period = 2 * (extent - 1);
    for (std::int64_t position = -before; position < extent + after; ++position) {
        if (mode == "edge" || extent == 1) {
            positions.push_back(std::clamp<std::int64_t>(position, 0, extent - 1));
        } else {
            const std::int64_t folded = ((position % period) + period) % period;
            positions.push_back(folded < extent ? folded : period - folded);
        }
    }
    return positions;
}

template <class Data>
Data padded_axis(const Data& data,
                 std::size_t axis,
                 std::int64_t before,
                 std::int64_t after,
                 const PadArguments& arguments,
                 const NodeDef& node) {
    const std::int64_t extent = extents_of(data)[axis];
    const std::int64_t cut_before = std::max<std::int64_t>(-before, 0);
    const std::int64_t cut_after = std::max<std::int64_t>(-after, 0);
    if (cut_before + cut_after > extent) {
        contradiction(node,
                      "pads cut more than the " + std::to_string(extent) + " positions of axis " +
                          std::to_string(axis));
    }
    Data result = cut_before + cut_after > 0
                      ? taken(data, axis, range_of(cut_before, extent - cut_before - cut_after))
                      : data;
    before = std::max<std::int64_t>(before, 0);
    after = std::max<std::int64_t>(after, 0);
    if (before + after == 0) {
        return result;
    }
    if (arguments.mode == "constant") {
        return padded(result, axis, before, after, arguments.fill);
    }
    if (extent - cut_before - cut_after == 0) {
        contradiction(node, "cannot pad an empty axis in " + arguments.mode + " mode");
    }
    return taken(result,
                 axis,
                 padding_sources(arguments.mode, extent - cut_before - cut_after, before, after));
}

template <Element T>
void record_pad(Context<T>& context, const NodeDef& node) {
    const PadArguments arguments = pad_arguments(context, node);
    if (arguments.mode != "constant" && arguments.mode != "reflect" && arguments.mode != "edge") {
        contradiction(node, "mode " + arguments.mode + " is none of constant, reflect and edge");
    }
    define_moved(context, node, 0, [&](const auto& data) {
        const std::size_t rank = extents_of(data).size();
        if (arguments.pads.size() != 2 * rank) {
            contradiction(node,
                          "pads " + listed(arguments.pads) + " are not 2 per axis of a rank-" +
                              std::to_string(rank) + " input");
        }
        auto result = data;
        for (std::size_t axis = 0; axis < rank; ++axis) {
            result = padded_axis(
                result, axis, arguments.pads[axis], arguments.pads[axis + rank], arguments, node);
        }
        return result;
    });
}

}  // namespace

void add_cutting_rules(RuleTable& table) {
    table.add(
        "Concat",
        {"axis"},
        [](auto& context, const NodeDef& node) { record_concat(context, node); },
        1);
    table.add(
        "Split",
        {"axis", "split"},
        [](auto& context, const NodeDef& node) { record_split(context, node); },
        2);
    table.add(
        "Slice",
        {"starts", "ends", "axes"},
        [](auto& context, const NodeDef& node) { record_slice(context, node); },
        1);
    table.add(
        "Pad",
        {"mode", "pads", "value"},
        [](auto& context, const NodeDef& node) { record_pad(context, node); },
        2);
}

}  // namespace topos::onnx::detail
