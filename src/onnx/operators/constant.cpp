// The operators that make or convert constants: Constant, Shape, Size,
// ConstantOfShape, Range (folded while recording), and Cast and CastLike
// (folded over constants, recorded over values). A tape computes in its one
// element type T: a Cast to a wider real type keeps T's precision, a Cast to
// a narrower one (float32 on a float64 tape, bfloat16) rounds as the file asks.
#include "onnx/context.hpp"
#include "onnx/rules.hpp"
#include <topos/onnx/errors.hpp>

#include <cmath>
#include <string>

namespace topos::onnx::detail {
namespace {

Constant constant_attribute(const NodeDef& node) {
    if (const auto* value = node.attribute("value"); value != nullptr && value->tensor) {
        return *value->tensor;
    }
    if (const auto* value = node.attribute("value_float"); value != nullptr) {
        return Constant::of_reals(DataType::Float, {}, {value->real});
    }
    if (const auto* value = node.attribute("value_floats"); value != nullptr) {
        return Constant::of_reals(
            DataType::Float, {static_cast<std::int64_t>(value->reals.size())}, value->reals);
    }
    if (const auto* value = node.attribute("value_int"); value != nullptr) {
        Constant constant = Constant::of_integers({value->integer});
        constant.extents.clear();
        return constant;
    }
    if (const auto* value = node.attribute("value_ints"); value != nullptr) {
        return Constant::of_integers(value->integers);
    }
    throw ModelError("node " + node.name + " (Constant) holds no value");
}

// The constant converted to `type`: reals to integers truncate toward zero, anything to bool is !=
// 0.
Constant cast_constant(const Constant& source, DataType type) {
    Constant result;
    result.type = type;
    result.extents = source.extents;
    if (is_real(type)) {
        result.reals = source.as_reals();
        if (type == DataType::Float) {
            for (double& real : result.reals) {
                real = static_cast<float>(real);
            }
        }
    } else if (type == DataType::Bool) {
        for (double real : source.as_reals()) {
            result.integers.push_back(real != 0 ? 1 : 0);
        }
    } else {
        result.integers = source.as_integers();
    }
    return result;
}

template <Element T>
Value<T> cast_value(Context<T>& context, const NodeDef& node, DataType from, DataType to) {
    Value<T> value = context.value(node, 0);
    if (to == DataType::Float16) {
        not_handled("a cast to " + type_name(to));
    }
    if (to == DataType::Bool) {
        return value.not_equal(context.scalar(0));
    }
    if (is_integral(to) && is_real(from)) {
        // Toward zero: floor of the magnitude, the sign put back.
        return value.sign() * value.abs().floor();
    }
    if (to == DataType::Bfloat16) {
        return value.rounded_to(ElementType::BF16);
    }
    if (to == DataType::Float && !std::is_same_v<T, float> && is_real(from)) {
        return value.rounded_to(ElementType::F32);
    }
    return value;
}

template <Element T>
void record_cast(Context<T>& context, const NodeDef& node, DataType to) {
    if (!is_real(to) && !is_integral(to)) {
        not_handled("a cast to " + type_name(to));
    }
    const DataType from = context.type_of(node.inputs.at(0));
    if (context.is_constant(node.inputs[0])) {
        context.define(node, 0, cast_constant(context.constant(node, 0), to));
        return;
    }
    context.define(node, 0, cast_value(context, node, from, to), to);
}

double range_count(double start, double limit, double delta) {
    return std::max(std::ceil((limit - start) / delta), 0.0);
}

}  // namespace

void add_constant_rules(RuleTable& table) {
    table.add("Constant",
              {"value", "value_float", "value_floats", "value_int", "value_ints"},
              [](auto& context, const NodeDef& node) {
                  context.define(node, 0, constant_attribute(node));
              });
    table.add("Shape", {"start", "end"}, [](auto& context, const NodeDef& node) {
        const auto extents = extents_of_shape(context.shape_of(node.inputs.at(0)));
        const auto rank = static_cast<std::int64_t>(extents.size());
        auto clamp = [&](std::int64_t position) {
            position = position < 0 ? position + rank : position;
            return std::clamp<std::int64_t>(position, 0, rank);
        };
        const std::int64_t start = clamp(integer_attribute(node, "start", 0));
        const std::int64_t end = clamp(integer_attribute(node, "end", rank));
        std::vector<std::int64_t> kept;
        for (std::int64_t axis = start; axis < end; ++axis) {
            kept.push_back(extents[static_cast<std::size_t>(axis)]);
        }
        context.define(node, 0, Constant::of_integers(kept));
    });
    table.add("Size", {}, [](auto& context, const NodeDef& node) {
        Constant size = Constant::of_integers(
            {static_cast<std::int64_t>(context.shape_of(node.inputs.at(0)).elements())});
        size.extents.clear();
        context.define(node, 0, size);
    });
    table.add("ConstantOfShape", {"value"}, [](auto& context, const NodeDef& node) {
        Constant fill = Constant::of_reals(DataType::Float, {1}, {0.0});
        if (const auto* value = node.attribute("value"); value != nullptr && value->tensor) {
            fill = *value->tensor;
        }
        if (fill.elements() != 1) {
            throw ModelError("node " + node.name +
                             " (ConstantOfShape): value must hold one element");
        }
        const auto extents = context.constant(node, 0).as_integers();
        Constant result;
        result.type = fill.type;
        result.extents = extents;
        const std::size_t count = folded_elements(extents);
        if (is_real(fill.type)) {
            result.reals.assign(count, fill.reals.at(0));
        } else {
            result.integers.assign(count, fill.integers.at(0));
        }
        context.define(node, 0, result);
    });
    table.add("Range", {}, [](auto& context, const NodeDef& node) {
        const Constant& start = context.constant(node, 0);
        const double first = start.as_reals().at(0);
        const double limit = context.constant(node, 1).as_reals().at(0);
        const double delta = context.constant(node, 2).as_reals().at(0);
        if (delta == 0) {
            throw ModelError("node " + node.name + " (Range): delta is 0");
        }
        const double steps = range_count(first, limit, delta);
        if (!(steps <= static_cast<double>(largest_folded_constant))) {
            not_handled("a Range of more than 2^26 elements");
        }
        const auto count = static_cast<std::int64_t>(steps);
        std::vector<double> values;
        for (std::int64_t index = 0; index < count; ++index) {
            values.push_back(is_real(start.type)
                                 ? first + static_cast<double>(index) * delta
                                 : std::round(first + static_cast<double>(index) * delta));
        }
        context.define(node, 0, Constant::of_reals(start.type, {count}, values));
    });
    table.add("Cast", {"to", "saturate"}, [](auto& context, const NodeDef& node) {
        record_cast(context, node, static_cast<DataType>(integer_attribute(node, "to", 0)));
    });
    table.add("CastLike", {"saturate"}, [](auto& context, const NodeDef& node) {
        record_cast(context, node, context.type_of(node.inputs.at(1)));
    });
}

}  // namespace topos::onnx::detail
