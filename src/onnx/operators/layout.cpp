// Layout: the operators that only move elements (Reshape, Flatten, Transpose,
// Squeeze, Unsqueeze, Concat, Split, Slice, Expand, Pad, Tile, Identity,
// Dropout at inference, DepthToSpace, SpaceToDepth). Each is written once over
// its data, a recorded value or an integer constant: the same steps record the
// one and fold the other (the shape arithmetic of exported models).
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/rules.hpp"
#include <topos/graph/node.hpp>
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace topos::onnx::detail {
namespace {

using Extents = std::vector<std::int64_t>;
using Positions = std::vector<std::int64_t>;  // along one axis; -1 marks a filled position
using Order = std::vector<std::size_t>;

[[noreturn]] void model_error(const NodeDef& node, const std::string& what) {
    throw ModelError("node " + node.name + " (" + node.operator_type + "): " + what);
}

std::string listed(const Extents& values) {
    std::string text = "[";
    for (std::size_t index = 0; index < values.size(); ++index) {
        text += (index == 0 ? "" : ", ") + std::to_string(values[index]);
    }
    return text + "]";
}

std::int64_t product(const Extents& extents, std::size_t from, std::size_t to) {
    std::int64_t result = 1;
    for (std::size_t axis = from; axis < to; ++axis) {
        result *= extents[axis];
    }
    return result;
}

Positions range_of(std::int64_t start, std::int64_t count) {
    Positions positions;
    for (std::int64_t offset = 0; offset < count; ++offset) {
        positions.push_back(start + offset);
    }
    return positions;
}

// ---- Constants: the folding case.

// A constant of `extents`: element i is the source's element sources[i], or `fill` for -1.
Constant mapped(const Constant& source, Extents extents, const Positions& sources, double fill) {
    Constant result;
    result.type = source.type;
    result.extents = std::move(extents);
    const bool real = is_real(source.type);
    for (std::int64_t from : sources) {
        const auto at = static_cast<std::size_t>(from);
        if (real) {
            result.reals.push_back(from < 0 ? fill : source.reals[at]);
        } else {
            result.integers.push_back(from < 0 ? std::llround(fill) : source.integers[at]);
        }
    }
    return result;
}

Extents extents_of(const Constant& data) {
    return data.extents;
}

Constant reshaped(const Constant& data, const Extents& extents) {
    Constant result = data;
    result.extents = extents;
    return result;
}

Constant permuted(const Constant& data, const Order& order) {
    const std::size_t rank = order.size();
    Extents extents;
    Extents strides(rank, 1);
    for (std::size_t axis = rank; axis-- > 1;) {
        strides[axis - 1] = strides[axis] * data.extents[axis];
    }
    for (std::size_t axis : order) {
        extents.push_back(data.extents[axis]);
    }
    Positions sources;
    Extents index(rank, 0);  // of the result, advanced like an odometer
    for (std::int64_t count = product(extents, 0, rank); count > 0; --count) {
        std::int64_t source = 0;
        for (std::size_t axis = 0; axis < rank; ++axis) {
            source += index[axis] * strides[order[axis]];
        }
        sources.push_back(source);
        for (std::size_t axis = rank; axis-- > 0;) {
            if (++index[axis] < extents[axis]) {
                break;
            }
            index[axis] = 0;
        }
    }
    return mapped(data, extents, sources, 0);
}

// The positions of one axis, in order; -1 gives `fill`.
Constant taken(const Constant& data,
               std::size_t axis,
               const Positions& positions,
               double fill = 0) {
    const std::int64_t outer = product(data.extents, 0, axis);
    const std::int64_t extent = data.extents[axis];
    const std::int64_t inner = product(data.extents, axis + 1, data.extents.size());
    Positions sources;
    for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t position : positions) {
            for (std::int64_t i = 0; i < inner; ++i) {
                sources.push_back(position < 0 ? -1 : (o * extent + position) * inner + i);
            }
        }
    }
    Extents extents = data.extents;
    extents[axis] = static_cast<std::int64_t>(positions.size());
    return mapped(data, extents, sources, fill);
}

Constant padded(
    const Constant& data, std::size_t axis, std::int64_t before, std::int64_t after, double fill) {
    Positions positions(static_cast<std::size_t>(before), -1);
    const Positions kept = range_of(0, data.extents[axis]);
    positions.insert(positions.end(), kept.begin(), kept.end());
    positions.insert(positions.end(), static_cast<std::size_t>(after), -1);
    return taken(data, axis, positions, fill);
}

Constant broadcast(const Constant& data, const Extents& extents) {
    Positions sources;
    for (std::size_t source : broadcast_sources(data.extents, extents)) {
        sources.push_back(static_cast<std::int64_t>(source));
    }
    return mapped(data, extents, sources, 0);
}

Constant tiled(const Constant& data, std::size_t axis, std::int64_t repeats) {
    Positions positions;
    for (std::int64_t copy = 0; copy < repeats; ++copy) {
        const Positions once = range_of(0, data.extents[axis]);
        positions.insert(positions.end(), once.begin(), once.end());
    }
    return taken(data, axis, positions);
}

// The parts joined along `axis`; ModelError where their extents differ elsewhere.
Constant joined(const std::vector<Constant>& parts, std::size_t axis, const NodeDef& node) {
    Constant result;
    result.type = parts.front().type;
    result.extents = parts.front().extents;
    result.extents[axis] = 0;
    for (const Constant& part : parts) {
        Extents expected = result.extents;
        expected[axis] = part.extents.size() == expected.size() ? part.extents[axis] : 0;
        if (part.extents != expected) {
            model_error(node,
                        "cannot join " + listed(part.extents) + " to " +
                            listed(parts.front().extents) + " along axis " + std::to_string(axis));
        }
        result.extents[axis] += part.extents[axis];
    }
    const std::int64_t outer = product(result.extents, 0, axis);
    for (std::int64_t o = 0; o < outer; ++o) {
        for (const Constant& part : parts) {
            const std::int64_t block = product(part.extents, axis, part.extents.size());
            const auto begin = static_cast<std::ptrdiff_t>(o * block);
            const auto end = begin + static_cast<std::ptrdiff_t>(block);
            if (is_real(result.type)) {
                result.reals.insert(
                    result.reals.end(), part.reals.begin() + begin, part.reals.begin() + end);
            } else {
                result.integers.insert(result.integers.end(),
                                       part.integers.begin() + begin,
                                       part.integers.begin() + end);
            }
        }
    }
    return result;
}

// ---- Values: the recording case.

template <Element T>
bool holds_indices(const Value<T>& value) {
    return value.tape().nodes()[value.index()].dtype() == DType::Index;
}

template <Element T>
Extents extents_of(const Value<T>& data) {
    return extents_of_shape(data.shape());
}

template <Element T>
Value<T> reshaped(const Value<T>& data, const Extents& extents) {
    return data.reshape(shape_of_extents(extents));
}

template <Element T>
Value<T> permuted(const Value<T>& data, const Order& order) {
    return data.permute(Axes(std::span<const std::size_t>(order)));
}

template <Element T>
Value<T> broadcast(const Value<T>& data, const Extents& extents) {
    return data.broadcast_to(shape_of_extents(extents));
}

// A constant block beside `data`, of its kind (indices or reals).
template <Element T>
Value<T> filled_like(const Value<T>& data, const Extents& extents, double fill) {
    const bool indices = holds_indices(data);
    Constant block = Constant::of_reals(
        indices ? DataType::Int64 : DataType::Double,
        extents,
        std::vector<double>(static_cast<std::size_t>(product(extents, 0, extents.size())), fill));
    return indices ? data.tape().indices(tensor_of<T>(block))
                   : data.tape().leaf(tensor_of<T>(block));
}

template <Element T>
Value<T> padded(
    const Value<T>& data, std::size_t axis, std::int64_t before, std::int64_t after, double fill) {
    if (fill == 0 && !std::signbit(fill)) {
        return data.pad(axis, static_cast<std::size_t>(before), static_cast<std::size_t>(after));
    }
    std::vector<Value<T>> parts;
    Extents block = extents_of(data);
    if (before > 0) {
        block[axis] = before;
        parts.push_back(filled_like(data, block, fill));
    }
    parts.push_back(data);
    if (after > 0) {
        block[axis] = after;
        parts.push_back(filled_like(data, block, fill));
    }
    return concat(parts, axis);
}

template <Element T>
Value<T> tiled(const Value<T>& data, std::size_t axis, std::int64_t repeats) {
    if (repeats == 1) {
        return data;
    }
    if (repeats == 0) {
        return data.narrow(axis, 0, 0);
    }
    const Shape shape = data.shape();
    return data.broadcast_along(axis, static_cast<std::size_t>(repeats))
        .reshape(shape.with_extent(axis, shape[axis] * static_cast<std::size_t>(repeats)));
}

// Positions start, start + step, ..., `count` of them; a step of 0 repeats one position.
struct Run {
    std::int64_t start = 0;
    std::int64_t step = 0;
    std::int64_t count = 1;
};

std::vector<Run> runs_of(const Positions& positions) {
    std::vector<Run> runs;
    std::size_t at = 0;
    while (at < positions.size()) {
        Run run{positions[at], 0, 1};
        if (at + 1 < positions.size() && positions[at + 1] >= positions[at]) {
            run.step = positions[at + 1] - positions[at];
            while (at + static_cast<std::size_t>(run.count) < positions.size() &&
                   positions[at + static_cast<std::size_t>(run.count)] ==
                       run.start + run.count * run.step) {
                ++run.count;
            }
        }
        runs.push_back(run);
        at += static_cast<std::size_t>(run.count);
    }
    return runs;
}

template <Element T>
Value<T> run_of(const Value<T>& data, std::size_t axis, const Run& run) {
    const auto start = static_cast<std::size_t>(run.start);
    const auto count = static_cast<std::size_t>(run.count);
    if (run.step == 0 && count > 1) {
        return data.narrow(axis, start, 1).broadcast_to(data.shape().with_extent(axis, count));
    }
    if (run.step <= 1 || count == 1) {
        return data.narrow(axis, start, count);
    }
    const auto step = static_cast<std::size_t>(run.step);
    return data.slice(axis, start, start + (count - 1) * step + 1, step);
}

// Positions of one axis of reals as a Gather: the axis moved to the front and back.
template <Element T>
Value<T> gathered_along(const Value<T>& data, std::size_t axis, const Positions& positions) {
    const Value<T> rows = data.tape().indices(tensor_of<T>(Constant::of_integers(positions)));
    const std::size_t rank = data.shape().rank();
    Order to_front{axis};
    Order back;
    for (std::size_t other = 0; other < rank; ++other) {
        if (other != axis) {
            to_front.push_back(other);
        }
        back.push_back(other == axis ? 0 : (other < axis ? other + 1 : other));
    }
    if (axis == 0) {
        return gather(data, rows);
    }
    return permuted(gather(permuted(data, to_front), rows), back);
}

// Few runs join as slices; more become one Gather over reals. Indices, which
// topos gathers by but not from, are always joined from slices.
constexpr std::size_t runs_joined_at_most = 8;
constexpr std::size_t slices_of_indices_at_most = 4096;

template <Element T>
Value<T> taken(const Value<T>& data, std::size_t axis, const Positions& positions) {
    const std::vector<Run> runs = runs_of(positions);
    if (runs.empty()) {
        return data.narrow(axis, 0, 0);
    }
    if (runs.size() == 1) {
        return run_of(data, axis, runs.front());
    }
    if (runs.size() > runs_joined_at_most && !holds_indices(data)) {
        return gathered_along(data, axis, positions);
    }
    if (runs.size() > slices_of_indices_at_most) {
        not_handled("picking " + std::to_string(positions.size()) +
                    " scattered positions of integers computed at run time (topos gathers "
                    "from reals only, and joins at most " +
                    std::to_string(slices_of_indices_at_most) + " slices of indices)");
    }
    std::vector<Value<T>> pieces;
    pieces.reserve(runs.size());
    for (const Run& run : runs) {
        pieces.push_back(run_of(data, axis, run));
    }
    return concat(pieces, axis);
}

// ---- Reading a node.

template <Element T>
bool integer_constant(const Context<T>& context, const NodeDef& node, std::size_t index) {
    return Context<T>::has_input(node, index) && context.is_constant(node.inputs[index]) &&
           is_integral(context.type_of(node.inputs[index]));
}

template <Element T>
Extents input_extents(const Context<T>& context, const NodeDef& node, std::size_t index) {
    if (!Context<T>::has_input(node, index)) {
        model_error(node, "lacks its input " + std::to_string(index));
    }
    if (context.is_constant(node.inputs[index])) {
        return context.constant(node, index).extents;
    }
    return extents_of_shape(context.shape_of(node.inputs[index]));
}

// A list the operator takes as an attribute before opset `since` and as a constant input from it.
template <Element T>
std::optional<Extents> attribute_or_input(const Context<T>& context,
                                          const NodeDef& node,
                                          const std::string& name,
                                          std::size_t input,
                                          std::int64_t since) {
    if (context.opset() < since) {
        if (Context<T>::has_input(node, input)) {
            model_error(
                node,
                name + " is an attribute, not an input, before opset " + std::to_string(since));
        }
        return integers_attribute(node, name);
    }
    if (node.attribute(name) != nullptr) {
        model_error(node,
                    name + " is an input, not an attribute, from opset " + std::to_string(since));
    }
    if (!Context<T>::has_input(node, input)) {
        return std::nullopt;
    }
    return context.constant(node, input).as_integers();
}

Extents required(const std::optional<Extents>& list, const NodeDef& node, const std::string& name) {
    if (!list) {
        model_error(node, "lacks its " + name);
    }
    return *list;
}

// Output `output`: `layout` of the data (input 0), folded where that is an integer constant.
template <Element T, class Layout>
void define_moved(Context<T>& context, const NodeDef& node, std::size_t output, Layout layout) {
    if (integer_constant(context, node, 0)) {
        context.define(node, output, layout(context.constant(node, 0)));
        return;
    }
    context.define(
        node, output, layout(context.carried_value(node, 0)), context.type_of(node.inputs.at(0)));
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze: new extents for the same elements.

Extents reshape_target(const Extents& input,
                       const Extents& shape,
                       bool allow_zero,
                       const NodeDef& node) {
    Extents target;
    std::optional<std::size_t> inferred;
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
        std::int64_t extent = shape[axis];
        if (extent == 0 && !allow_zero) {
            if (axis >= input.size()) {
                model_error(node,
                            "the shape " + listed(shape) + " copies axis " + std::to_string(axis) +
                                " of an input " + listed(input) + " that lacks it");
            }
            extent = input[axis];
        } else if (extent == -1 && !inferred) {
            inferred = axis;
            extent = 1;
        } else if (extent < 0) {
            model_error(node, "the shape " + listed(shape) + " is not one Reshape reads");
        }
        target.push_back(extent);
    }
    const std::int64_t elements = product(input, 0, input.size());
    const std::int64_t known = product(target, 0, target.size());
    if (inferred && known != 0 && elements % known == 0) {
        target[*inferred] = elements / known;
    }
    if (product(target, 0, target.size()) != elements || (inferred && known == 0)) {
        model_error(node, "cannot reshape " + listed(input) + " to " + listed(shape));
    }
    return target;
}

Extents squeezed(const Extents& extents, const std::optional<Extents>& axes, const NodeDef& node) {
    std::vector<bool> removed(extents.size(), false);
    for (std::size_t axis = 0; !axes && axis < extents.size(); ++axis) {
        removed[axis] = extents[axis] == 1;
    }
    for (std::int64_t given : axes.value_or(Extents{})) {
        const std::size_t axis = axis_in(given, extents.size(), node);
        if (extents[axis] != 1 || removed[axis]) {
            model_error(node,
                        "cannot squeeze axis " + std::to_string(given) + " of " + listed(extents));
        }
        removed[axis] = true;
    }
    Extents result;
    for (std::size_t axis = 0; axis < extents.size(); ++axis) {
        if (!removed[axis]) {
            result.push_back(extents[axis]);
        }
    }
    return result;
}

Extents unsqueezed(const Extents& extents, const Extents& axes, const NodeDef& node) {
    const std::size_t rank = extents.size() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (std::int64_t given : axes) {
        const std::size_t axis = axis_in(given, rank, node);
        if (inserted[axis]) {
            model_error(node, "the axes " + listed(axes) + " name an axis twice");
        }
        inserted[axis] = true;
    }
    Extents result;
    std::size_t next = 0;
    for (std::size_t axis = 0; axis < rank; ++axis) {
        result.push_back(inserted[axis] ? 1 : extents[next++]);
    }
    return result;
}

std::size_t flatten_axis(std::int64_t axis, std::size_t rank, const NodeDef& node) {
    const auto signed_rank = static_cast<std::int64_t>(rank);
    if (axis < -signed_rank || axis > signed_rank) {
        model_error(node,
                    "axis " + std::to_string(axis) + " is outside [-" + std::to_string(rank) +
                        ", " + std::to_string(rank) + "]");
    }
    return static_cast<std::size_t>(axis < 0 ? axis + signed_rank : axis);
}

void add_reshaping_rules(RuleTable& table) {
    table.add(
        "Reshape",
        {"allowzero"},
        [](auto& context, const NodeDef& node) {
            const Extents shape = context.constant(node, 1).as_integers();
            const bool allow_zero = integer_attribute(node, "allowzero", 0) != 0;
            define_moved(context, node, 0, [&](const auto& data) {
                return reshaped(data, reshape_target(extents_of(data), shape, allow_zero, node));
            });
        },
        5);
    table.add(
        "Flatten",
        {"axis"},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [&](const auto& data) {
                const Extents extents = extents_of(data);
                const std::size_t axis =
                    flatten_axis(integer_attribute(node, "axis", 1), extents.size(), node);
                return reshaped(
                    data, {product(extents, 0, axis), product(extents, axis, extents.size())});
            });
        },
        1);
    table.add(
        "Squeeze",
        {"axes"},
        [](auto& context, const NodeDef& node) {
            const auto axes = attribute_or_input(context, node, "axes", 1, 13);
            define_moved(context, node, 0, [&](const auto& data) {
                return reshaped(data, squeezed(extents_of(data), axes, node));
            });
        },
        1);
    table.add(
        "Unsqueeze",
        {"axes"},
        [](auto& context, const NodeDef& node) {
            const Extents axes =
                required(attribute_or_input(context, node, "axes", 1, 13), node, "axes");
            define_moved(context, node, 0, [&](const auto& data) {
                return reshaped(data, unsqueezed(extents_of(data), axes, node));
            });
        },
        1);
}

// ---- Transpose, DepthToSpace, SpaceToDepth: axes reordered.

Order transpose_order(const NodeDef& node, std::size_t rank) {
    Order order;
    const auto perm = integers_attribute(node, "perm");
    if (!perm) {
        for (std::size_t axis = rank; axis-- > 0;) {
            order.push_back(axis);
        }
        return order;
    }
    std::vector<bool> seen(rank, false);
    for (std::int64_t given : *perm) {
        const std::size_t axis = axis_in(given, rank, node);
        if (seen[axis]) {
            break;
        }
        seen[axis] = true;
        order.push_back(axis);
    }
    if (order.size() != rank || perm->size() != rank) {
        model_error(
            node,
            "perm " + listed(*perm) + " is not an order of " + std::to_string(rank) + " axes");
    }
    return order;
}

template <class Data>
Data depth_to_space(const Data& data,
                    std::int64_t block,
                    bool column_row_depth,
                    const NodeDef& node) {
    const Extents x = extents_of(data);
    if (x.size() != 4 || block <= 0 || x[1] % (block * block) != 0) {
        model_error(node,
                    "blocksize " + std::to_string(block) + " does not divide the channels of " +
                        listed(x) + " (rank 4)");
    }
    const std::int64_t depth = x[1] / (block * block);
    const Extents split = column_row_depth ? Extents{x[0], depth, block, block, x[2], x[3]}
                                           : Extents{x[0], block, block, depth, x[2], x[3]};
    const Order order = column_row_depth ? Order{0, 1, 4, 2, 5, 3} : Order{0, 3, 4, 1, 5, 2};
    return reshaped(permuted(reshaped(data, split), order),
                    {x[0], depth, x[2] * block, x[3] * block});
}

template <class Data>
Data space_to_depth(const Data& data, std::int64_t block, const NodeDef& node) {
    const Extents x = extents_of(data);
    if (x.size() != 4 || block <= 0 || x[2] % block != 0 || x[3] % block != 0) {
        model_error(node,
                    "blocksize " + std::to_string(block) +
                        " does not divide the height and width of " + listed(x) + " (rank 4)");
    }
    const Extents split{x[0], x[1], x[2] / block, block, x[3] / block, block};
    return reshaped(permuted(reshaped(data, split), {0, 3, 5, 1, 2, 4}),
                    {x[0], x[1] * block * block, x[2] / block, x[3] / block});
}

void add_reordering_rules(RuleTable& table) {
    table.add(
        "Transpose",
        {"perm"},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [&](const auto& data) {
                return permuted(data, transpose_order(node, extents_of(data).size()));
            });
        },
        1);
    table.add(
        "DepthToSpace",
        {"blocksize", "mode"},
        [](auto& context, const NodeDef& node) {
            const std::string mode = text_attribute(node, "mode", "DCR");
            if (mode != "DCR" && mode != "CRD") {
                model_error(node, "mode " + mode + " is neither DCR nor CRD");
            }
            define_moved(context, node, 0, [&](const auto& data) {
                return depth_to_space(
                    data, integer_attribute(node, "blocksize", 0), mode == "CRD", node);
            });
        },
        1);
    table.add(
        "SpaceToDepth",
        {"blocksize"},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [&](const auto& data) {
                return space_to_depth(data, integer_attribute(node, "blocksize", 0), node);
            });
        },
        1);
}

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
        model_error(node, "needs inputs and an axis");
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
            model_error(node,
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
        model_error(node,
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
            model_error(node, "takes starts, ends and axes as attributes before opset 10");
        }
        return {required(integers_attribute(node, "starts"), node, "starts"),
                required(integers_attribute(node, "ends"), node, "ends"),
                integers_attribute(node, "axes"),
                std::nullopt};
    }
    if (!node.attributes.empty()) {
        model_error(node, "takes starts, ends and axes as inputs from opset 10");
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
        model_error(node, "starts, ends, axes and steps differ in length");
    }
    std::vector<std::pair<std::size_t, Positions>> plan;
    std::vector<bool> seen(extents.size(), false);
    for (std::size_t index = 0; index < count; ++index) {
        const std::size_t axis = axis_in(axes[index], extents.size(), node);
        if (seen[axis] || steps[index] == 0) {
            model_error(node, "slices axis " + std::to_string(axis) + " twice, or by a step of 0");
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
        model_error(node, "takes pads and constant_value as inputs from opset 11");
    }
    arguments.pads = context.constant(node, 1).as_integers();
    if (Context<T>::has_input(node, 2)) {
        const auto fill = context.constant(node, 2).as_reals();
        if (fill.size() != 1) {
            model_error(node, "constant_value must hold one element");
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
        model_error(node,
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
        model_error(node, "cannot pad an empty axis in " + arguments.mode + " mode");
    }
    return taken(result,
                 axis,
                 padding_sources(arguments.mode, extent - cut_before - cut_after, before, after));
}

template <Element T>
void record_pad(Context<T>& context, const NodeDef& node) {
    const PadArguments arguments = pad_arguments(context, node);
    if (arguments.mode != "constant" && arguments.mode != "reflect" && arguments.mode != "edge") {
        model_error(node, "mode " + arguments.mode + " is none of constant, reflect and edge");
    }
    define_moved(context, node, 0, [&](const auto& data) {
        const std::size_t rank = extents_of(data).size();
        if (arguments.pads.size() != 2 * rank) {
            model_error(node,
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

// ---- Expand, Tile, Identity, Dropout.

template <Element T>
void record_tile(Context<T>& context, const NodeDef& node) {
    const Extents repeats = context.constant(node, 1).as_integers();
    define_moved(context, node, 0, [&](const auto& data) {
        if (repeats.size() != extents_of(data).size() ||
            std::any_of(repeats.begin(), repeats.end(), [](std::int64_t r) { return r < 0; })) {
            model_error(node,
                        "repeats " + listed(repeats) + " do not fit " + listed(extents_of(data)));
        }
        auto result = data;
        for (std::size_t axis = 0; axis < repeats.size(); ++axis) {
            result = tiled(result, axis, repeats[axis]);
        }
        return result;
    });
}

// Dropout at inference copies its input; training mode (random) is refused.
template <Element T>
void record_dropout(Context<T>& context, const NodeDef& node) {
    if (context.opset() < 7 && integer_attribute(node, "is_test", 0) == 0) {
        not_handled("Dropout with is_test 0: training-mode dropout, which is random");
    }
    if (context.opset() >= 12 && Context<T>::has_input(node, 2)) {
        if (!context.is_constant(node.inputs[2])) {
            not_handled("a training_mode computed at run time (training-mode dropout is random)");
        }
        const auto training = context.constant(node, 2).as_integers();
        if (std::any_of(
                training.begin(), training.end(), [](std::int64_t on) { return on != 0; })) {
            not_handled("training_mode true: training-mode dropout, which is random");
        }
    }
    define_moved(context, node, 0, [](const auto& data) { return data; });
    if (node.outputs.size() < 2 || node.outputs[1].empty()) {
        return;  // no mask asked for
    }
    const Extents extents = input_extents(context, node, 0);
    const DataType mask_type =
        context.opset() < 10 ? context.type_of(node.inputs[0]) : DataType::Bool;
    context.define(node,
                   1,
                   Constant::of_reals(
                       mask_type,
                       extents,
                       std::vector<double>(
                           static_cast<std::size_t>(product(extents, 0, extents.size())), 1.0)));
}

void add_copying_rules(RuleTable& table) {
    table.add("Expand", {}, [](auto& context, const NodeDef& node) {
        const Extents shape = context.constant(node, 1).as_integers();
        define_moved(context, node, 0, [&](const auto& data) {
            return broadcast(data, broadcast_extents(extents_of(data), shape, node));
        });
    });
    table.add(
        "Pad",
        {"mode", "pads", "value"},
        [](auto& context, const NodeDef& node) { record_pad(context, node); },
        2);
    table.add("Tile", {}, [](auto& context, const NodeDef& node) { record_tile(context, node); });
    table.add(
        "Identity",
        {},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [](const auto& data) { return data; });
        },
        1);
    table.add(
        "Dropout",
        {"is_test", "ratio", "seed"},
        [](auto& context, const NodeDef& node) { record_dropout(context, node); },
        1);
}

}  // namespace

void add_layout_rules(RuleTable& table) {
    add_reshaping_rules(table);
    add_reordering_rules(table);
    add_cutting_rules(table);
    add_copying_rules(table);
}

}  // namespace topos::onnx::detail
