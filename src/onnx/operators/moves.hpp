// Moves: the steps the layout and cutting operators share, which only move
// elements. Each is written twice over the same arguments, once for an integer
// constant (folded while recording: the shape arithmetic of exported models)
// and once for a recorded Value<T>, so that a rule written once over its data
// does either; with them, the helpers that read such a node.
#pragma once

#include "onnx/constant.hpp"
#include "onnx/context.hpp"
#include "onnx/model_def.hpp"
#include <topos/graph/node.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos::onnx::detail::moves {

using Extents = std::vector<std::int64_t>;
using Positions = std::vector<std::int64_t>;  // along one axis; -1 marks a filled position
using Order = std::vector<std::size_t>;

// "[a, b, c]".
std::string listed(const Extents& values);

// The product of extents[from, to).
std::int64_t product(const Extents& extents, std::size_t from, std::size_t to);

// start, start + 1, ..., `count` of them.
Positions range_of(std::int64_t start, std::int64_t count);

// ---- Constants: the folding case.

// A constant of `extents`: element i is the source's element sources[i], or `fill` for -1.
Constant mapped(const Constant& source, Extents extents, const Positions& sources, double fill);

Extents extents_of(const Constant& data);
Constant reshaped(const Constant& data, const Extents& extents);
Constant permuted(const Constant& data, const Order& order);

// The positions of one axis, in order; -1 gives `fill`.
Constant taken(const Constant& data, std::size_t axis, const Positions& positions, double fill = 0);

// `before` and `after` positions of `fill` around one axis.
Constant padded(
    const Constant& data, std::size_t axis, std::int64_t before, std::int64_t after, double fill);

Constant broadcast(const Constant& data, const Extents& extents);
Constant tiled(const Constant& data, std::size_t axis, std::int64_t repeats);

// The parts joined along `axis`; ModelError where their extents differ elsewhere.
Constant joined(const std::vector<Constant>& parts, std::size_t axis, const NodeDef& node);

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

// The positions as runs, each as long as it can be.
std::vector<Run> runs_of(const Positions& positions);

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
inline constexpr std::size_t runs_joined_at_most = 8;
inline constexpr std::size_t slices_of_indices_at_most = 4096;

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
        contradiction(node, "lacks its input " + std::to_string(index));
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
            contradiction(
                node,
                name + " is an attribute, not an input, before opset " + std::to_string(since));
        }
        return integers_attribute(node, name);
    }
    if (node.attribute(name) != nullptr) {
        contradiction(node,
                      name + " is an input, not an attribute, from opset " + std::to_string(since));
    }
    if (!Context<T>::has_input(node, input)) {
        return std::nullopt;
    }
    return context.constant(node, input).as_integers();
}

// The list, or ModelError: the node lacks its `name`.
Extents required(const std::optional<Extents>& list, const NodeDef& node, const std::string& name);

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

}  // namespace topos::onnx::detail::moves
