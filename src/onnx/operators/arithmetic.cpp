// Elementwise arithmetic: Add, Sub, Mul, Div, Pow, the variadic Min, Max, Sum
// and Mean, and the unary functions of the catalog (Sqrt, Reciprocal, Neg,
// Abs, Exp, Log, Erf, Sin, Cos, Floor, Ceil, Sign). Over integer constants
// (shape arithmetic) they fold; over values they record with numpy
// broadcasting. Arithmetic on integers computed at run time is refused: a
// tape carries integers in its real type, exactly only where they are small.
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/rules.hpp"
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <cstdlib>

namespace topos::onnx::detail {
namespace {

// The input's value where integers are carried exactly by the operation (Neg, Abs, Max, Min).
template <Element T>
Value<T> exact_value(Context<T>& context, const NodeDef& node, std::size_t index) {
    return context.value(node, index);
}

// Opsets before 7 broadcast b against a from `axis` on, not from the right:
// b is given a's rank with extents of 1 around its own.
template <Element T>
Value<T> legacy_broadcast(const Value<T>& a,
                          const Value<T>& b,
                          std::int64_t axis,
                          const NodeDef& node) {
    const Shape a_shape = a.shape();
    const Shape b_shape = b.shape();
    const std::size_t start = axis_in(axis, a_shape.rank(), node);
    if (start + b_shape.rank() > a_shape.rank()) {
        throw ModelError("node " + node.name + " (" + node.operator_type + "): " + b_shape.str() +
                         " does not fit into " + a_shape.str() + " from axis " +
                         std::to_string(start));
    }
    std::vector<std::size_t> extents(a_shape.rank(), 1);
    for (std::size_t axis_of_b = 0; axis_of_b < b_shape.rank(); ++axis_of_b) {
        extents[start + axis_of_b] = b_shape[axis_of_b];
    }
    return b.reshape(Shape(std::span<const std::size_t>(extents)));
}

template <Element T, class Fold, class Record>
void binary(Context<T>& context, const NodeDef& node, Fold fold, Record record) {
    if (node.inputs.size() != 2) {
        throw ModelError("node " + node.name + " (" + node.operator_type + ") needs 2 inputs");
    }
    if (integer_constants(context, node)) {
        const DataType type = context.type_of(node.inputs[0]);
        context.define(
            node,
            0,
            fold_integers(context.constant(node, 0), context.constant(node, 1), type, node, fold));
        return;
    }
    const DataType type = context.type_of(node.inputs[0]);
    Value<T> a = context.real_value(node, 0);
    Value<T> b = context.real_value(node, 1);
    if (integer_attribute(node, "broadcast", 0) != 0 && node.attribute("axis") != nullptr) {
        b = legacy_broadcast(a, b, integer_attribute(node, "axis", 0), node);
    }
    context.define(node, 0, record(a, b), type);
}

std::int64_t divide_toward_zero(std::int64_t a, std::int64_t b) {
    if (b == 0) {
        not_handled("an integer division by zero");
    }
    return a / b;
}

// Min, Max, Sum, Mean: the inputs combined left to right, broadcast.
template <Element T, class Fold, class Combine>
void variadic(
    Context<T>& context, const NodeDef& node, Fold fold, Combine combine, bool integers_exact) {
    if (node.inputs.empty()) {
        throw ModelError("node " + node.name + " (" + node.operator_type + ") has no inputs");
    }
    const DataType type = context.type_of(node.inputs[0]);
    if (integer_constants(context, node)) {
        Constant result = context.constant(node, 0);
        for (std::size_t index = 1; index < node.inputs.size(); ++index) {
            result = fold_integers(result, context.constant(node, index), type, node, fold);
        }
        context.define(node, 0, result);
        return;
    }
    auto operand = [&](std::size_t index) {
        return integers_exact ? exact_value(context, node, index) : context.real_value(node, index);
    };
    Value<T> result = operand(0);
    for (std::size_t index = 1; index < node.inputs.size(); ++index) {
        result = combine(result, operand(index));
    }
    context.define(node, 0, result, type);
}

template <Element T>
void record_mean(Context<T>& context, const NodeDef& node) {
    Value<T> sum = context.real_value(node, 0);
    for (std::size_t index = 1; index < node.inputs.size(); ++index) {
        sum = sum + context.real_value(node, index);
    }
    context.define(node,
                   0,
                   sum / context.scalar(static_cast<double>(node.inputs.size())),
                   context.type_of(node.inputs.at(0)));
}

template <Element T, class Unary>
void unary(Context<T>& context, const NodeDef& node, Unary function) {
    context.define(
        node, 0, function(context.real_value(node, 0)), context.type_of(node.inputs.at(0)));
}

// x ** y. A constant exponent of 2 is a Square: x * x is the correctly rounded
// square (the exact pow is within an ulp of it, and equal to it in float), at
// the cost of a product where pow costs a logarithm and an exponential (an
// exported LayerNorm squares its deviations this way).
template <Element T>
Value<T> record_power(Context<T>& context, const NodeDef& node) {
    const Value<T> base = context.real_value(node, 0);
    if (Context<T>::has_input(node, 1) && context.is_constant(node.inputs[1])) {
        const auto exponent = context.constant(node, 1).as_reals();
        if (exponent.size() == 1 && exponent[0] == 2.0 &&
            context.shape_of(node.inputs[1]).rank() <= base.shape().rank()) {
            return base.square();
        }
    }
    return base.pow(context.value(node, 1));
}

void add_binary_rules(RuleTable& table) {
    // Opsets 6 and earlier name their broadcasting; from 7 on it is numpy's, as recorded here.
    table.add("Add", {"broadcast", "axis"}, [](auto& context, const NodeDef& node) {
        binary(context, node, std::plus<>(), [](const auto& a, const auto& b) { return a + b; });
    });
    table.add("Sub", {"broadcast", "axis"}, [](auto& context, const NodeDef& node) {
        binary(context, node, std::minus<>(), [](const auto& a, const auto& b) { return a - b; });
    });
    table.add("Mul", {"broadcast", "axis"}, [](auto& context, const NodeDef& node) {
        binary(
            context, node, std::multiplies<>(), [](const auto& a, const auto& b) { return a * b; });
    });
    table.add("Div", {"broadcast", "axis"}, [](auto& context, const NodeDef& node) {
        binary(
            context, node, divide_toward_zero, [](const auto& a, const auto& b) { return a / b; });
    });
    table.add("Pow", {}, [](auto& context, const NodeDef& node) {
        context.define(node, 0, record_power(context, node), context.type_of(node.inputs.at(0)));
    });
}

void add_variadic_rules(RuleTable& table) {
    table.add("Max", {}, [](auto& context, const NodeDef& node) {
        variadic(
            context,
            node,
            [](std::int64_t a, std::int64_t b) { return std::max(a, b); },
            [](const auto& a, const auto& b) { return a.maximum(b); },
            true);
    });
    table.add("Min", {}, [](auto& context, const NodeDef& node) {
        variadic(
            context,
            node,
            [](std::int64_t a, std::int64_t b) { return std::min(a, b); },
            [](const auto& a, const auto& b) { return a.minimum(b); },
            true);
    });
    table.add("Sum", {}, [](auto& context, const NodeDef& node) {
        variadic(
            context,
            node,
            std::plus<>(),
            [](const auto& a, const auto& b) { return a + b; },
            false);
    });
    table.add("Mean", {}, [](auto& context, const NodeDef& node) { record_mean(context, node); });
}

void add_unary_rules(RuleTable& table) {
    table.add("Neg", {}, [](auto& context, const NodeDef& node) {
        if (integer_constants(context, node)) {
            Constant result = context.constant(node, 0);
            for (auto& integer : result.integers) {
                integer = -integer;
            }
            context.define(node, 0, result);
            return;
        }
        context.define(node, 0, -exact_value(context, node, 0), context.type_of(node.inputs.at(0)));
    });
    table.add("Abs", {}, [](auto& context, const NodeDef& node) {
        if (integer_constants(context, node)) {
            Constant result = context.constant(node, 0);
            for (auto& integer : result.integers) {
                integer = std::abs(integer);
            }
            context.define(node, 0, result);
            return;
        }
        context.define(
            node, 0, exact_value(context, node, 0).abs(), context.type_of(node.inputs.at(0)));
    });
    table.add("Sign", {}, [](auto& context, const NodeDef& node) {
        context.define(
            node, 0, exact_value(context, node, 0).sign(), context.type_of(node.inputs.at(0)));
    });
    table.add("Sqrt", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return x.sqrt(); });
    });
    table.add("Reciprocal", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [&](const auto& x) { return context.scalar(1) / x; });
    });
    table.add("Exp", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return x.exp(); });
    });
    table.add("Log", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return x.log(); });
    });
    table.add("Erf", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return x.erf(); });
    });
    table.add("Sin", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return x.sin(); });
    });
    table.add("Cos", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return x.cos(); });
    });
    table.add("Floor", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return x.floor(); });
    });
    table.add("Ceil", {}, [](auto& context, const NodeDef& node) {
        unary(context, node, [](const auto& x) { return -(-x).floor(); });
    });
}

}  // namespace

void add_arithmetic_rules(RuleTable& table) {
    add_binary_rules(table);
    add_variadic_rules(table);
    add_unary_rules(table);
}

}  // namespace topos::onnx::detail
