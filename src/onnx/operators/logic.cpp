// Comparisons and logic: Equal, Less, Greater, LessOrEqual, GreaterOrEqual
// give boolean masks (1 and 0 carried in T); Not, And, Or and Xor combine
// them; Where selects. Over integer constants they fold.
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/rules.hpp"
#include <topos/onnx/errors.hpp>

namespace topos::onnx::detail {
namespace {

template <Element T, class Fold>
void comparison(Context<T>& context, const NodeDef& node, Comparison direction, Fold fold) {
    if (integer_constants(context, node)) {
        context.define(
            node,
            0,
            fold_integers(
                context.constant(node, 0), context.constant(node, 1), DataType::Bool, node, fold));
        return;
    }
    context.define(
        node, 0, context.value(node, 0).compare(context.value(node, 1), direction), DataType::Bool);
}

template <Element T>
Value<T> boolean_value(Context<T>& context, const NodeDef& node, std::size_t index) {
    if (context.type_of(node.inputs.at(index)) != DataType::Bool) {
        not_handled("logic on " + type_name(context.type_of(node.inputs[index])) + " values");
    }
    return context.value(node, index);
}

template <Element T, class Fold, class Record>
void logic(Context<T>& context, const NodeDef& node, Fold fold, Record record) {
    if (integer_constants(context, node)) {
        context.define(
            node,
            0,
            fold_integers(
                context.constant(node, 0), context.constant(node, 1), DataType::Bool, node, fold));
        return;
    }
    context.define(node,
                   0,
                   record(boolean_value(context, node, 0), boolean_value(context, node, 1)),
                   DataType::Bool);
}

void add_comparison_rules(RuleTable& table) {
    table.add("Equal", {}, [](auto& context, const NodeDef& node) {
        comparison(context, node, Comparison::Equal, std::equal_to<>());
    });
    table.add("Less", {}, [](auto& context, const NodeDef& node) {
        comparison(context, node, Comparison::Less, std::less<>());
    });
    table.add("LessOrEqual", {}, [](auto& context, const NodeDef& node) {
        comparison(context, node, Comparison::LessEqual, std::less_equal<>());
    });
    table.add("Greater", {}, [](auto& context, const NodeDef& node) {
        comparison(context, node, Comparison::Greater, std::greater<>());
    });
    table.add("GreaterOrEqual", {}, [](auto& context, const NodeDef& node) {
        comparison(context, node, Comparison::GreaterEqual, std::greater_equal<>());
    });
}

}  // namespace

void add_logic_rules(RuleTable& table) {
    add_comparison_rules(table);
    table.add(
        "Not",
        {},
        [](auto& context, const NodeDef& node) {
            if (integer_constants(context, node)) {
                Constant result = context.constant(node, 0);
                for (auto& integer : result.integers) {
                    integer = integer == 0 ? 1 : 0;
                }
                context.define(node, 0, result);
                return;
            }
            context.define(
                node, 0, context.scalar(1) - boolean_value(context, node, 0), DataType::Bool);
        },
        1);
    table.add("And", {}, [](auto& context, const NodeDef& node) {
        logic(
            context,
            node,
            [](std::int64_t a, std::int64_t b) { return a != 0 && b != 0 ? 1 : 0; },
            [](const auto& a, const auto& b) { return a * b; });
    });
    table.add("Or", {}, [](auto& context, const NodeDef& node) {
        logic(
            context,
            node,
            [](std::int64_t a, std::int64_t b) { return a != 0 || b != 0 ? 1 : 0; },
            [](const auto& a, const auto& b) { return a.maximum(b); });
    });
    table.add("Xor", {}, [](auto& context, const NodeDef& node) {
        logic(
            context,
            node,
            [](std::int64_t a, std::int64_t b) { return (a != 0) != (b != 0) ? 1 : 0; },
            [](const auto& a, const auto& b) { return a.not_equal(b); });
    });
    table.add("Where", {}, [](auto& context, const NodeDef& node) {
        if (integer_constants(context, node)) {
            const Constant& condition = context.constant(node, 0);
            const Constant& chosen = context.constant(node, 1);
            const Constant& otherwise = context.constant(node, 2);
            Constant result;
            result.type = chosen.type;
            result.extents =
                broadcast_extents(broadcast_extents(condition.extents, chosen.extents, node),
                                  otherwise.extents,
                                  node);
            const auto from_condition = broadcast_sources(condition.extents, result.extents);
            const auto from_chosen = broadcast_sources(chosen.extents, result.extents);
            const auto from_otherwise = broadcast_sources(otherwise.extents, result.extents);
            for (std::size_t index = 0; index < from_condition.size(); ++index) {
                result.integers.push_back(condition.integers[from_condition[index]] != 0
                                              ? chosen.integers[from_chosen[index]]
                                              : otherwise.integers[from_otherwise[index]]);
            }
            context.define(node, 0, result);
            return;
        }
        context.define(
            node,
            0,
            where(context.value(node, 0), context.value(node, 1), context.value(node, 2)),
            context.type_of(node.inputs.at(1)));
    });
}

}  // namespace topos::onnx::detail
