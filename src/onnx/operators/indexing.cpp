// Indexing: Gather (rows of any axis), GatherElements (one element per index),
// OneHot (over constant indices) and Trilu (a triangle kept). Over integer
// constants they fold, as shape code uses Gather; over values they record
// topos's gather and one_hot, or a constant mask selecting elements exactly.
// Negative index constants are wrapped here; indices computed at run time
// must be in [0, extent), as topos's gather and one_hot stop at any other.
#include "onnx/context.hpp"
#include "onnx/operators/moves.hpp"
#include "onnx/rules.hpp"
#include <topos/graph/node.hpp>
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace topos::onnx::detail {
namespace {

using moves::Extents;
using moves::holds_indices;
using moves::input_extents;
using moves::integer_constant;
using moves::Order;
using moves::product;

// Index constants in [-extent, extent) as positions in [0, extent); ModelError for any other.
std::vector<std::int64_t> wrapped(const Constant& indices,
                                  std::int64_t extent,
                                  const NodeDef& node) {
    if (!is_integral(indices.type) || indices.type == DataType::Bool) {
        contradiction(node, "indices of element type " + type_name(indices.type));
    }
    std::vector<std::int64_t> positions;
    for (std::int64_t index : indices.integers) {
        if (index < -extent || index >= extent) {
            contradiction(node,
                          "index " + std::to_string(index) + " is outside [-" +
                              std::to_string(extent) + ", " + std::to_string(extent) + ")");
        }
        positions.push_back(index < 0 ? index + extent : index);
    }
    return positions;
}

// Indices computed at run time, as topos gathers by them.
template <Element T>
Value<T> run_time_indices(Context<T>& context, const NodeDef& node, std::size_t index) {
    Value<T> indices = context.index_value(node, index);
    if (!holds_indices(indices)) {
        not_handled("indices computed as reals at run time (input " + std::to_string(index) + ", " +
                    node.inputs[index] +
                    "): topos gathers by integer graph inputs and constants only");
    }
    return indices;
}

// Rows of a table of indices picked one by one (topos gathers from reals only).
constexpr std::size_t rows_of_indices_at_most = 4096;

template <Element T>
Value<T> picked_rows(const Value<T>& table, const std::vector<std::int64_t>& rows) {
    if (rows.empty()) {
        return table.narrow(0, 0, 0);
    }
    if (rows.size() > rows_of_indices_at_most) {
        not_handled("picking " + std::to_string(rows.size()) +
                    " positions of integers computed at run time (topos gathers from reals only, "
                    "and joins at most " +
                    std::to_string(rows_of_indices_at_most) + " slices of indices)");
    }
    std::vector<Value<T>> picked;
    picked.reserve(rows.size());
    for (std::int64_t row : rows) {
        picked.push_back(table.narrow(0, static_cast<std::size_t>(row), 1));
    }
    return concat(picked, 0);
}

// The rows of axis 0 of `table` at the positions, reals by a gather, indices slice by slice.
template <Element T>
Value<T> rows_at(const Value<T>& table,
                 const std::vector<std::int64_t>& rows,
                 const Extents& picks) {
    if (holds_indices(table)) {
        Extents extents = picks;
        for (std::size_t axis = 1; axis < table.shape().rank(); ++axis) {
            extents.push_back(static_cast<std::int64_t>(table.shape()[axis]));
        }
        return picked_rows(table, rows).reshape(shape_of_extents(extents));
    }
    Constant positions = Constant::of_integers(rows);
    positions.extents = picks;
    return gather(table, table.tape().indices(tensor_of<T>(positions)));
}

// ---- Gather: the indices' positions of one axis, the indices' extents in its place.

Constant gathered(const Constant& data,
                  std::size_t axis,
                  const Constant& indices,
                  const NodeDef& node) {
    const std::int64_t extent = data.extents[axis];
    const std::int64_t inner = product(data.extents, axis + 1, data.extents.size());
    const auto positions = wrapped(indices, extent, node);
    Constant result;
    result.type = data.type;
    result.extents.assign(data.extents.begin(),
                          data.extents.begin() + static_cast<std::ptrdiff_t>(axis));
    result.extents.insert(result.extents.end(), indices.extents.begin(), indices.extents.end());
    result.extents.insert(result.extents.end(),
                          data.extents.begin() + static_cast<std::ptrdiff_t>(axis) + 1,
                          data.extents.end());
    for (std::int64_t o = 0; o < product(data.extents, 0, axis); ++o) {
        for (std::int64_t position : positions) {
            for (std::int64_t i = 0; i < inner; ++i) {
                const auto at = static_cast<std::size_t>((o * extent + position) * inner + i);
                if (is_real(data.type)) {
                    result.reals.push_back(data.reals[at]);
                } else {
                    result.integers.push_back(data.integers[at]);
                }
            }
        }
    }
    return result;
}

// Gather along `axis`: the axis moved to the front, rows gathered, the axes put back around the
// picks.
template <Element T, class Gather>
Value<T> gathered_along(const Value<T>& data,
                        std::size_t axis,
                        std::size_t pick_rank,
                        Gather gather_rows) {
    const std::size_t rank = data.shape().rank();
    Order to_front{axis};
    for (std::size_t other = 0; other < rank; ++other) {
        if (other != axis) {
            to_front.push_back(other);
        }
    }
    const Value<T> front =
        axis == 0 ? data : data.permute(Axes(std::span<const std::size_t>(to_front)));
    Value<T> picked = gather_rows(front);
    if (axis == 0) {
        return picked;
    }
    Order back;
    for (std::size_t result_axis = 0; result_axis < rank - 1 + pick_rank; ++result_axis) {
        if (result_axis < axis) {
            back.push_back(pick_rank + result_axis);
        } else if (result_axis < axis + pick_rank) {
            back.push_back(result_axis - axis);
        } else {
            back.push_back(result_axis);
        }
    }
    return picked.permute(Axes(std::span<const std::size_t>(back)));
}

template <Element T>
void record_gather(Context<T>& context, const NodeDef& node) {
    const Extents extents = input_extents(context, node, 0);
    const std::size_t axis = axis_in(integer_attribute(node, "axis", 0), extents.size(), node);
    const DataType type = context.type_of(node.inputs[0]);
    if (!context.is_constant(node.inputs.at(1))) {
        const Value<T> data = context.carried_value(node, 0);
        if (holds_indices(data)) {
            not_handled(
                "a Gather from integers computed at run time by indices computed at run time "
                "(topos gathers from reals only)");
        }
        const Value<T> indices = run_time_indices(context, node, 1);
        context.define(
            node,
            0,
            gathered_along(data,
                           axis,
                           indices.shape().rank(),
                           [&](const Value<T>& table) { return gather(table, indices); }),
            type);
        return;
    }
    const Constant& indices = context.constant(node, 1);
    if (integer_constant(context, node, 0)) {
        context.define(node, 0, gathered(context.constant(node, 0), axis, indices, node));
        return;
    }
    const auto rows = wrapped(indices, extents[axis], node);
    context.define(node,
                   0,
                   gathered_along(context.carried_value(node, 0),
                                  axis,
                                  indices.extents.size(),
                                  [&](const Value<T>& table) {
                                      return rows_at(table, rows, indices.extents);
                                  }),
                   type);
}

// ---- GatherElements: output[i][j] = data[indices[i][j]][j] (axis 0), and alike for any axis.

// For each index, the flat position in the data it reads.
std::vector<std::int64_t> element_sources(const Extents& data,
                                          std::size_t axis,
                                          const Constant& indices,
                                          const NodeDef& node) {
    const auto positions = wrapped(indices, data[axis], node);
    const std::size_t rank = data.size();
    Extents index(rank, 0);  // of the indices, advanced like an odometer
    std::vector<std::int64_t> sources;
    for (std::int64_t position : positions) {
        std::int64_t source = 0;
        for (std::size_t d = 0; d < rank; ++d) {
            source = source * data[d] + (d == axis ? position : index[d]);
        }
        sources.push_back(source);
        for (std::size_t d = rank; d-- > 0;) {
            if (++index[d] < indices.extents[d]) {
                break;
            }
            index[d] = 0;
        }
    }
    return sources;
}

template <Element T>
void elements_by_constant(Context<T>& context,
                          const NodeDef& node,
                          std::size_t axis,
                          const Extents& data) {
    const Constant& indices = context.constant(node, 1);
    const auto sources = element_sources(data, axis, indices, node);
    if (integer_constant(context, node, 0)) {
        const Constant& table = context.constant(node, 0);
        Constant result;
        result.type = table.type;
        result.extents = indices.extents;
        for (std::int64_t source : sources) {
            result.integers.push_back(table.integers[static_cast<std::size_t>(source)]);
        }
        context.define(node, 0, result);
        return;
    }
    const Value<T> flat = context.carried_value(node, 0).reshape(
        Shape{static_cast<std::size_t>(product(data, 0, data.size()))});
    context.define(
        node, 0, rows_at(flat, sources, indices.extents), context.type_of(node.inputs[0]));
}

// Indices computed at run time select by a one-hot mask along the axis: each
// output sums its one selected element with zeros, which is exact.
template <Element T>
void elements_at_run_time(Context<T>& context,
                          const NodeDef& node,
                          std::size_t axis,
                          const Extents& data) {
    const Value<T> indices = run_time_indices(context, node, 1);
    Value<T> table = context.carried_value(node, 0);
    if (holds_indices(table)) {
        not_handled(
            "GatherElements from integers computed at run time by indices computed at run time");
    }
    const Shape picks = indices.shape();
    const std::size_t rank = data.size();
    Order axis_last;
    for (std::size_t d = 0; d < rank; ++d) {
        if (d != axis) {
            table = table.narrow(d, 0, picks[d]);
            axis_last.push_back(d);
        }
    }
    axis_last.push_back(axis);
    const Value<T> lined =
        table.permute(Axes(std::span<const std::size_t>(axis_last))).unsqueeze(axis);
    const Value<T> mask = indices.one_hot(static_cast<std::size_t>(data[axis]));
    context.define(
        node, 0, where(mask, lined, context.scalar(0)).sum(rank), context.type_of(node.inputs[0]));
}

template <Element T>
void record_gather_elements(Context<T>& context, const NodeDef& node) {
    const Extents data = input_extents(context, node, 0);
    const Extents indices = input_extents(context, node, 1);
    const std::size_t axis = axis_in(integer_attribute(node, "axis", 0), data.size(), node);
    bool fits = indices.size() == data.size();
    for (std::size_t d = 0; fits && d < data.size(); ++d) {
        fits = d == axis || indices[d] <= data[d];
    }
    if (!fits) {
        contradiction(node,
                      "indices of rank " + std::to_string(indices.size()) +
                          " do not fit the data's rank " + std::to_string(data.size()) +
                          " and extents");
    }
    if (context.is_constant(node.inputs[1])) {
        elements_by_constant(context, node, axis, data);
    } else {
        elements_at_run_time(context, node, axis, data);
    }
}

// ---- OneHot over constant indices: a constant mask selects on_value or off_value.

// The mask of OneHot's output, in its layout (the depth axis at `axis`).
Constant one_hot_mask(const Constant& indices,
                      std::int64_t depth,
                      std::size_t axis,
                      bool wrap_negative) {
    Constant mask;
    mask.type = DataType::Bool;
    mask.extents = indices.extents;
    mask.extents.insert(mask.extents.begin() + static_cast<std::ptrdiff_t>(axis), depth);
    const std::int64_t outer = product(indices.extents, 0, axis);
    const std::int64_t inner = product(indices.extents, axis, indices.extents.size());
    const auto picked = indices.as_integers();
    for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t k = 0; k < depth; ++k) {
            for (std::int64_t i = 0; i < inner; ++i) {
                std::int64_t index = picked[static_cast<std::size_t>(o * inner + i)];
                index = index < 0 && wrap_negative ? index + depth : index;
                mask.integers.push_back(index == k ? 1 : 0);
            }
        }
    }
    return mask;
}

template <Element T>
void record_one_hot(Context<T>& context, const NodeDef& node) {
    if (!context.is_constant(node.inputs.at(0))) {
        not_handled(
            "OneHot over indices computed at run time: ONNX wraps negative indices and gives "
            "out-of-range ones all off_value, where topos's one_hot stops at both");
    }
    const Constant& indices = context.constant(node, 0);
    const auto depth = context.constant(node, 1).as_integers();
    if (depth.size() != 1 || depth.front() < 1) {
        contradiction(node, "depth must be one positive number");
    }
    const auto rank = static_cast<std::int64_t>(indices.extents.size());
    const std::size_t axis =
        axis_in(integer_attribute(node, "axis", -1), static_cast<std::size_t>(rank + 1), node);
    const Constant mask = one_hot_mask(indices, depth.front(), axis, context.opset() >= 11);
    if (input_extents(context, node, 2) != Extents{2}) {
        contradiction(node, "values must be [off_value, on_value]");
    }
    if (integer_constant(context, node, 2)) {
        const Constant& values = context.constant(node, 2);
        Constant result = mask;
        result.type = values.type;
        for (std::int64_t& element : result.integers) {
            element = values.integers[element != 0 ? 1 : 0];
        }
        context.define(node, 0, result);
        return;
    }
    const Value<T> values = context.value(node, 2);
    const Value<T> off = values.narrow(0, 0, 1).reshape(Shape());
    const Value<T> on = values.narrow(0, 1, 1).reshape(Shape());
    context.define(node, 0, where(context.leaf(mask), on, off), context.type_of(node.inputs[2]));
}

// ---- Trilu: the elements on and above (upper) or below (lower) the k-th diagonal kept, zeros
// elsewhere.

struct Triangle {
    bool upper = true;
    std::int64_t k = 0;

    bool keeps(std::int64_t row, std::int64_t column) const {
        return upper ? column - row >= k : column - row <= k;
    }
};

Constant triangle_of(const Constant& data, const Triangle& triangle) {
    Constant result = data;
    const std::int64_t rows = data.extents[data.extents.size() - 2];
    const std::int64_t columns = data.extents.back();
    for (std::size_t at = 0; at < result.integers.size(); ++at) {
        const auto within = static_cast<std::int64_t>(at) % (rows * columns);
        if (!triangle.keeps(within / columns, within % columns)) {
            result.integers[at] = 0;
        }
    }
    return result;
}

// Indices, which topos selects from by layout alone: each row narrowed to its kept columns and
// padded with zeros.
constexpr std::int64_t triangle_rows_of_indices_at_most = 1024;

template <Element T>
Value<T> triangle_of_indices(const Value<T>& data, const Triangle& triangle) {
    const std::size_t row_axis = data.shape().rank() - 2;
    const std::size_t column_axis = row_axis + 1;
    const auto rows = static_cast<std::int64_t>(data.shape()[row_axis]);
    const auto columns = static_cast<std::int64_t>(data.shape()[column_axis]);
    if (rows == 0) {
        return data;
    }
    if (rows > triangle_rows_of_indices_at_most) {
        not_handled("Trilu over " + std::to_string(rows) +
                    " rows of integers computed at run time (at most " +
                    std::to_string(triangle_rows_of_indices_at_most) + " are joined row by row)");
    }
    std::vector<Value<T>> kept_rows;
    for (std::int64_t row = 0; row < rows; ++row) {
        const Value<T> line = data.narrow(row_axis, static_cast<std::size_t>(row), 1);
        const std::int64_t edge =
            std::clamp<std::int64_t>(row + triangle.k + (triangle.upper ? 0 : 1), 0, columns);
        const auto first = static_cast<std::size_t>(triangle.upper ? edge : 0);
        const auto count = static_cast<std::size_t>(triangle.upper ? columns - edge : edge);
        const std::size_t zeros = static_cast<std::size_t>(columns) - count;
        kept_rows.push_back(
            line.narrow(column_axis, first, count)
                .pad(column_axis, triangle.upper ? zeros : 0, triangle.upper ? 0 : zeros));
    }
    return concat(kept_rows, row_axis);
}

template <Element T>
void record_trilu(Context<T>& context, const NodeDef& node) {
    Triangle triangle{integer_attribute(node, "upper", 1) != 0, 0};
    if (Context<T>::has_input(node, 1)) {
        const auto k = context.constant(node, 1).as_integers();
        if (k.size() != 1) {
            contradiction(node, "k must hold one element");
        }
        triangle.k = k.front();
    }
    const Extents extents = input_extents(context, node, 0);
    if (extents.size() < 2) {
        contradiction(node, "needs an input of rank 2 or more");
    }
    if (integer_constant(context, node, 0)) {
        context.define(node, 0, triangle_of(context.constant(node, 0), triangle));
        return;
    }
    const Value<T> data = context.carried_value(node, 0);
    const DataType type = context.type_of(node.inputs[0]);
    if (holds_indices(data)) {
        context.define(node, 0, triangle_of_indices(data, triangle), type);
        return;
    }
    const Extents plane(extents.end() - 2, extents.end());
    Constant mask =
        Constant::of_reals(DataType::Bool,
                           plane,
                           std::vector<double>(static_cast<std::size_t>(plane[0] * plane[1]), 1.0));
    mask = triangle_of(mask, triangle);
    context.define(node, 0, where(context.leaf(mask), data, context.scalar(0)), type);
}

}  // namespace

void add_indexing_rules(RuleTable& table) {
    table.add(
        "Gather",
        {"axis"},
        [](auto& context, const NodeDef& node) { record_gather(context, node); },
        1);
    table.add("GatherElements", {"axis"}, [](auto& context, const NodeDef& node) {
        record_gather_elements(context, node);
    });
    table.add("OneHot", {"axis"}, [](auto& context, const NodeDef& node) {
        record_one_hot(context, node);
    });
    table.add("Trilu", {"upper"}, [](auto& context, const NodeDef& node) {
        record_trilu(context, node);
    });
}

}  // namespace topos::onnx::detail
