// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, the
// norms ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum and ReduceLogSumExp
// over a set of axes; ArgMax and ArgMin, and Softmax, LogSoftmax and Hardmax
// along one axis. Over integer constants the cheap ones fold; positions
// (ArgMax, Hardmax) are composed exactly from masks of the maxima.
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/rules.hpp"
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos::onnx::detail {
namespace {

// What a reduction node asks for: its axes (ascending, distinct) and keepdims.
struct Reduction {
    std::vector<std::size_t> axes;
    bool keep = true;
    bool identity = false;  // noop_with_empty_axes over no axes
};

// The axes as the node names them: an attribute, or from ReduceSum-13 on an
// input, which must be known while recording unless its shape says it is empty.
template <Element T>
std::vector<std::int64_t> named_axes(const Context<T>& context, const NodeDef& node) {
    const bool axes_input = node.operator_type == "ReduceSum" && context.opset() >= 13;
    if (!axes_input) {
        if (Context<T>::has_input(node, 1)) {
            contradiction(node, "at this opset the axes are an attribute, not an input");
        }
        return integers_attribute(node, "axes").value_or(std::vector<std::int64_t>{});
    }
    if (node.attribute("axes") != nullptr) {
        contradiction(node, "from opset 13 on the axes are an input, not an attribute");
    }
    if (!Context<T>::has_input(node, 1) || (!context.is_constant(node.inputs[1]) &&
                                            context.shape_of(node.inputs[1]).elements() == 0)) {
        return {};
    }
    return context.constant(node, 1).as_integers();
}

// The node's reduction of an input of rank `rank`: no axes named means all of
// them, or none under noop_with_empty_axes.
template <Element T>
Reduction reduction_of(const Context<T>& context, const NodeDef& node, std::size_t rank) {
    Reduction reduction;
    reduction.keep = integer_attribute(node, "keepdims", 1) != 0;
    const std::vector<std::int64_t> named = named_axes(context, node);
    if (named.empty()) {
        reduction.identity = integer_attribute(node, "noop_with_empty_axes", 0) != 0;
        for (std::size_t axis = 0; axis < rank && !reduction.identity; ++axis) {
            reduction.axes.push_back(axis);
        }
        return reduction;
    }
    for (std::int64_t axis : named) {
        reduction.axes.push_back(axis_in(axis, rank, node));
    }
    std::sort(reduction.axes.begin(), reduction.axes.end());
    if (std::adjacent_find(reduction.axes.begin(), reduction.axes.end()) != reduction.axes.end()) {
        contradiction(node, "an axis is named twice");
    }
    return reduction;
}

// The shape with the reduced axes removed.
Shape without_axes(const Shape& shape, const std::vector<std::size_t>& axes) {
    std::vector<std::size_t> extents;
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        if (std::find(axes.begin(), axes.end(), axis) == axes.end()) {
            extents.push_back(shape[axis]);
        }
    }
    return Shape(std::span<const std::size_t>(extents));
}

// Applies a single-axis reduction that keeps its axis (extent 1) over each axis.
template <Element T, class Along>
Value<T> reduce_each(const Value<T>& x, const Reduction& reduction, Along along) {
    Value<T> result = x;
    for (std::size_t axis : reduction.axes) {
        result = along(result, axis);
    }
    return reduction.keep ? result : result.reshape(without_axes(x.shape(), reduction.axes));
}

// The product along `axis`, kept with extent 1: halves multiplied pairwise, an
// odd last element carried along, so that log(extent) multiplications deep.
template <Element T>
Value<T> product_along(const Value<T>& x, std::size_t axis) {
    std::size_t extent = x.shape()[axis];
    if (extent == 0) {
        return x.sum(Axes{axis}, true) + static_cast<T>(1);  // the empty product
    }
    Value<T> rest = x;
    while (extent > 1) {
        const std::size_t half = extent / 2;
        Value<T> paired = rest.narrow(axis, 0, half) * rest.narrow(axis, half, half);
        if (extent % 2 == 1) {
            paired = concat(std::vector<Value<T>>{paired, rest.narrow(axis, extent - 1, 1)}, axis);
        }
        rest = paired;
        extent = half + extent % 2;
    }
    return rest;
}

// An integer constant's elements as outer x extent x inner around one axis.
struct Lanes {
    std::size_t outer = 1;
    std::size_t extent = 1;
    std::size_t inner = 1;

    Lanes(const std::vector<std::int64_t>& extents, std::size_t axis) {
        for (std::size_t index = 0; index < extents.size(); ++index) {
            const auto size = static_cast<std::size_t>(extents[index]);
            (index < axis ? outer : index == axis ? extent : inner) *= size;
        }
    }

    std::size_t at(std::size_t out, std::size_t position, std::size_t in) const {
        return (out * extent + position) * inner + in;
    }
};

// How an integer constant is reduced: each element prepared, then combined from `initial`.
struct IntegerFold {
    std::int64_t initial = 0;
    std::int64_t (*combine)(std::int64_t, std::int64_t) = nullptr;
    std::int64_t (*prepare)(std::int64_t) = [](std::int64_t element) { return element; };
    bool average = false;  // the sum divided by the count, toward zero (ReduceMean)
};

// Two's complement wrap, as numpy's int64 (signed overflow is undefined in C++).
std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

std::int64_t wrapping_multiply(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

// The constant combined along `axis`, which stays with extent 1.
Constant fold_axis(const Constant& input, std::size_t axis, const IntegerFold& fold) {
    const Lanes lanes(input.extents, axis);
    Constant result;
    result.type = input.type;
    result.extents = input.extents;
    result.extents[axis] = 1;
    result.integers.assign(lanes.outer * lanes.inner, fold.initial);
    for (std::size_t out = 0; out < lanes.outer; ++out) {
        for (std::size_t position = 0; position < lanes.extent; ++position) {
            for (std::size_t in = 0; in < lanes.inner; ++in) {
                std::int64_t& held = result.integers[out * lanes.inner + in];
                held = fold.combine(held, input.integers[lanes.at(out, position, in)]);
            }
        }
    }
    return result;
}

Constant fold_reduction(Constant input, const Reduction& reduction, const IntegerFold& fold) {
    if (reduction.identity) {
        return input;
    }
    std::int64_t count = 1;
    for (std::int64_t& element : input.integers) {
        element = fold.prepare(element);
    }
    for (std::size_t axis : reduction.axes) {
        count *= input.extents[axis];
        input = fold_axis(input, axis, fold);
    }
    if (fold.average) {
        if (count == 0) {
            not_handled("the mean of no integers");
        }
        for (std::int64_t& element : input.integers) {
            element /= count;
        }
    }
    for (auto axis = reduction.axes.rbegin(); axis != reduction.axes.rend() && !reduction.keep;
         ++axis) {
        input.extents.erase(input.extents.begin() + static_cast<std::ptrdiff_t>(*axis));
    }
    return input;
}

// A reduction over the axes the node names: folded over an integer constant
// where `fold` is given, else recorded by reduce(x, reduction).
template <Element T, class Reduce>
void record_reduction(Context<T>& context,
                      const NodeDef& node,
                      std::optional<IntegerFold> fold,
                      Reduce reduce) {
    const Shape shape = context.shape_of(node.inputs.at(0));
    const Reduction reduction = reduction_of(context, node, shape.rank());
    if (fold && integer_constants(context, node)) {
        context.define(node, 0, fold_reduction(context.constant(node, 0), reduction, *fold));
        return;
    }
    const Value<T> x = context.real_value(node, 0);
    context.define(
        node, 0, reduction.identity ? x : reduce(x, reduction), context.type_of(node.inputs[0]));
}

// The positions along `axis` as scores, shaped to broadcast against the
// input: extent - p when the first maximum wins, p + 1 when the last does.
template <Element T>
Value<T> position_scores(Context<T>& context, const Shape& shape, std::size_t axis, bool last) {
    const std::size_t extent = shape[axis];
    const auto counted = [](std::size_t count) {
        return static_cast<double>(static_cast<T>(static_cast<double>(count))) ==
               static_cast<double>(count);
    };
    if (!counted(extent) || !counted(extent + 1)) {
        not_handled("positions along an axis of " + std::to_string(extent) +
                    ", more than this element type counts exactly");
    }
    std::vector<T> scores;
    for (std::size_t position = 0; position < extent; ++position) {
        scores.push_back(
            static_cast<T>(static_cast<double>(last ? position + 1 : extent - position)));
    }
    std::vector<std::size_t> extents(shape.rank(), 1);
    extents[axis] = extent;
    return context.tape().leaf(
        Tensor<T>(Shape(std::span<const std::size_t>(extents)), std::span<const T>(scores)));
}

// The highest score among the positions that hold the maximum along `axis` (kept).
template <Element T>
Value<T> best_score(const Value<T>& x, const Value<T>& scores, std::size_t axis) {
    const Value<T> peak = x.max(Axes{axis}, true);
    return (x.equal(peak) * scores).max(Axes{axis}, true);
}

// The position of the first (or last) maximum along `axis`, kept with extent 1.
template <Element T>
Value<T> position_of_maximum(Context<T>& context, const Value<T>& x, std::size_t axis, bool last) {
    const Value<T> best = best_score(x, position_scores(context, x.shape(), axis, last), axis);
    return last ? best - context.scalar(1)
                : context.scalar(static_cast<double>(x.shape()[axis])) - best;
}

// ArgMax (or ArgMin) over an integer constant, folded: the first (or last)
// greatest (or least) element of each lane.
Constant fold_position(const Constant& input, std::size_t axis, bool of_minimum, bool last) {
    const Lanes lanes(input.extents, axis);
    Constant result;
    result.type = DataType::Int64;
    result.extents = input.extents;
    result.extents[axis] = 1;
    for (std::size_t out = 0; out < lanes.outer; ++out) {
        for (std::size_t in = 0; in < lanes.inner; ++in) {
            std::size_t best = 0;
            for (std::size_t position = 1; position < lanes.extent; ++position) {
                const std::int64_t candidate = input.integers[lanes.at(out, position, in)];
                const std::int64_t held = input.integers[lanes.at(out, best, in)];
                const bool better = of_minimum ? candidate < held : candidate > held;
                best = better || (last && candidate == held) ? position : best;
            }
            result.integers.push_back(static_cast<std::int64_t>(best));
        }
    }
    return result;
}

// ArgMax, and ArgMin as the ArgMax of -x.
template <Element T>
void record_position(Context<T>& context, const NodeDef& node, bool of_minimum) {
    const Shape shape = context.shape_of(node.inputs.at(0));
    const std::size_t axis = axis_in(integer_attribute(node, "axis", 0), shape.rank(), node);
    const bool keep = integer_attribute(node, "keepdims", 1) != 0;
    const bool last = integer_attribute(node, "select_last_index", 0) != 0;
    if (shape[axis] == 0) {
        contradiction(node,
                      "the axis " + std::to_string(axis) + " of " + shape.str() +
                          " is empty and has no maximum");
    }
    if (integer_constants(context, node)) {
        Constant position = fold_position(context.constant(node, 0), axis, of_minimum, last);
        if (!keep) {
            position.extents.erase(position.extents.begin() + static_cast<std::ptrdiff_t>(axis));
        }
        context.define(node, 0, position);
        return;
    }
    const Value<T> x = context.real_value(node, 0);
    const Value<T> position = position_of_maximum(context, of_minimum ? -x : x, axis, last);
    context.define(node, 0, keep ? position : position.squeeze(axis), DataType::Int64);
}

// 1 at the first maximum along `axis`, 0 elsewhere.
template <Element T>
Value<T> hardmax(Context<T>& context, const Value<T>& x, std::size_t axis) {
    if (x.shape()[axis] == 0) {
        return x;
    }
    const Value<T> scores = position_scores(context, x.shape(), axis, false);
    return scores.equal(best_score(x, scores, axis));
}

// Softmax, LogSoftmax and Hardmax: from opset 13 along one axis (default -1);
// before, over the input coerced to 2-D at `axis` (default 1), whose trailing
// axes are flattened into one.
template <Element T, class Along>
void record_softmax_like(Context<T>& context, const NodeDef& node, Along along) {
    const Value<T> x = context.real_value(node, 0);
    const Shape shape = x.shape();
    const DataType type = context.type_of(node.inputs[0]);
    if (context.opset() >= 13) {
        const std::size_t axis = axis_in(integer_attribute(node, "axis", -1), shape.rank(), node);
        context.define(node, 0, along(x, axis), type);
        return;
    }
    const std::int64_t named = integer_attribute(node, "axis", 1);
    const std::size_t axis = named == static_cast<std::int64_t>(shape.rank())
                                 ? shape.rank()
                                 : axis_in(named, shape.rank(), node);
    if (axis + 1 == shape.rank()) {
        context.define(node, 0, along(x, axis), type);
        return;
    }
    std::size_t rows = 1;
    std::size_t columns = 1;
    for (std::size_t index = 0; index < shape.rank(); ++index) {
        (index < axis ? rows : columns) *= shape[index];
    }
    const Value<T> matrix = x.reshape(Shape{rows, columns});
    context.define(node, 0, along(matrix, 1).reshape(shape), type);
}

std::int64_t larger(std::int64_t a, std::int64_t b) {
    return std::max(a, b);
}

std::int64_t smaller(std::int64_t a, std::int64_t b) {
    return std::min(a, b);
}

constexpr IntegerFold sum_fold{0, wrapping_add};

void add_sum_rules(RuleTable& table) {
    table.add("ReduceSum",
              {"axes", "keepdims", "noop_with_empty_axes"},
              [](auto& context, const NodeDef& node) {
                  record_reduction(context, node, sum_fold, [](const auto& x, const Reduction& r) {
                      return x.sum(axes_of(r.axes), r.keep);
                  });
              });
    table.add("ReduceMean", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(
            context,
            node,
            IntegerFold{0, wrapping_add, sum_fold.prepare, true},
            [](const auto& x, const Reduction& r) { return x.mean(axes_of(r.axes), r.keep); });
    });
    table.add("ReduceProd", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(context,
                         node,
                         IntegerFold{1, wrapping_multiply},
                         [](const auto& x, const Reduction& r) {
                             return reduce_each(x, r, [](const auto& v, std::size_t axis) {
                                 return product_along(v, axis);
                             });
                         });
    });
}

void add_extremum_rules(RuleTable& table) {
    table.add("ReduceMax", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(
            context,
            node,
            IntegerFold{std::numeric_limits<std::int64_t>::min(), larger},
            [](const auto& x, const Reduction& r) { return x.max(axes_of(r.axes), r.keep); });
    });
    // topos has no Min reduction: min(x) = -max(-x), exactly.
    table.add("ReduceMin", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(
            context,
            node,
            IntegerFold{std::numeric_limits<std::int64_t>::max(), smaller},
            [](const auto& x, const Reduction& r) { return -(-x).max(axes_of(r.axes), r.keep); });
    });
    table.add("ArgMax",
              {"axis", "keepdims", "select_last_index"},
              [](auto& context, const NodeDef& node) { record_position(context, node, false); });
    table.add("ArgMin",
              {"axis", "keepdims", "select_last_index"},
              [](auto& context, const NodeDef& node) { record_position(context, node, true); });
}

std::int64_t absolute(std::int64_t element) {
    return element < 0 ? -element : element;
}

std::int64_t square(std::int64_t element) {
    return wrapping_multiply(element, element);
}

void add_norm_rules(RuleTable& table) {
    table.add("ReduceL1", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(
            context,
            node,
            IntegerFold{0, wrapping_add, absolute},
            [](const auto& x, const Reduction& r) { return x.abs().sum(axes_of(r.axes), r.keep); });
    });
    table.add("ReduceSumSquare", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(context,
                         node,
                         IntegerFold{0, wrapping_add, square},
                         [](const auto& x, const Reduction& r) {
                             return x.square().sum(axes_of(r.axes), r.keep);
                         });
    });
    table.add("ReduceL2", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(context, node, std::nullopt, [](const auto& x, const Reduction& r) {
            return x.square().sum(axes_of(r.axes), r.keep).sqrt();
        });
    });
    table.add("ReduceLogSum", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(context, node, std::nullopt, [](const auto& x, const Reduction& r) {
            return x.sum(axes_of(r.axes), r.keep).log();
        });
    });
    // One stable logsumexp per axis: log-sum-exp over several axes nests exactly.
    table.add("ReduceLogSumExp", {"axes", "keepdims"}, [](auto& context, const NodeDef& node) {
        record_reduction(context, node, std::nullopt, [](const auto& x, const Reduction& r) {
            return reduce_each(
                x, r, [](const auto& v, std::size_t axis) { return v.logsumexp(axis, true); });
        });
    });
}

void add_softmax_rules(RuleTable& table) {
    table.add("Softmax", {"axis"}, [](auto& context, const NodeDef& node) {
        record_softmax_like(
            context, node, [](const auto& x, std::size_t axis) { return x.softmax(axis); });
    });
    table.add("LogSoftmax", {"axis"}, [](auto& context, const NodeDef& node) {
        record_softmax_like(
            context, node, [](const auto& x, std::size_t axis) { return x.log_softmax(axis); });
    });
    table.add("Hardmax", {"axis"}, [](auto& context, const NodeDef& node) {
        record_softmax_like(context, node, [&](const auto& x, std::size_t axis) {
            return hardmax(context, x, axis);
        });
    });
}

}  // namespace

void add_reduction_rules(RuleTable& table) {
    add_sum_rules(table);
    add_extremum_rules(table);
    add_norm_rules(table);
    add_softmax_rules(table);
}

}  // namespace topos::onnx::detail
