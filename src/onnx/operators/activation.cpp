// Activations: the elementwise nonlinearities of neural networks (Relu, Tanh,
// Sigmoid, Softplus, the exponential units Elu, Selu and Celu, the piecewise
// linear LeakyRelu, PRelu, ThresholdedRelu, Shrink, HardSigmoid, HardSwish,
// Clip, Softsign). Each records a catalog opcode where one is exact, else an
// exact composition of masks, selections and elementwise arithmetic.
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/rules.hpp"
#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos::onnx::detail {
namespace {

// Records function(x) over the node's one real input, keeping its element type.
template <Element T, class Function>
void elementwise(Context<T>& context, const NodeDef& node, Function function) {
    context.define(
        node, 0, function(context.real_value(node, 0)), context.type_of(node.inputs.at(0)));
}

// alpha * (exp(x) - 1) for x <= 0 and 0 above: expm1 reads min(x, 0), so that
// no branch overflows for large x (whose derivative would then be NaN).
template <Element T>
Value<T> negative_exponential(Context<T>& context, const Value<T>& x, double alpha) {
    return context.scalar(alpha) * x.minimum(context.scalar(0)).expm1();
}

// x where x > 0, alpha (exp(x) - 1) elsewhere.
template <Element T>
Value<T> exponential_unit(Context<T>& context, const Value<T>& x, double alpha) {
    return x.relu() + negative_exponential(context, x, alpha);
}

// max(0, min(1, alpha x + beta)).
template <Element T>
Value<T> hard_sigmoid(Context<T>& context, const Value<T>& x, double alpha, double beta) {
    const Value<T> line = context.scalar(alpha) * x + context.scalar(beta);
    return line.minimum(context.scalar(1)).maximum(context.scalar(0));
}

// max(0, x) + min(0, alpha (exp(x / alpha) - 1)); for alpha > 0 the
// exponential reads min(x, 0), as in Elu.
template <Element T>
Value<T> celu(Context<T>& context, const Value<T>& x, double alpha, const NodeDef& node) {
    if (alpha > 0) {
        return x.relu() + context.scalar(alpha) *
                              (x.minimum(context.scalar(0)) / context.scalar(alpha)).expm1();
    }
    if (alpha == 0) {
        throw ModelError("node " + node.name +
                         " (Celu): alpha is 0, and the formula divides by it");
    }
    const Value<T> scaled = context.scalar(alpha) * (x / context.scalar(alpha)).expm1();
    return x.relu() + scaled.minimum(context.scalar(0));
}

// x + bias below -lambd, x - bias above lambd, 0 between.
template <Element T>
Value<T> shrink(Context<T>& context, const Value<T>& x, double bias, double lambd) {
    const Value<T> zero = context.scalar(0);
    const Value<T> above = where(x.greater(context.scalar(lambd)), x - context.scalar(bias), zero);
    return where(x.less(context.scalar(-lambd)), x + context.scalar(bias), above);
}

// Opsets before 7 give PRelu one slope, or one per channel (axis 1).
template <Element T>
Value<T> legacy_slope(const Value<T>& slope, const Shape& x_shape) {
    const Shape slope_shape = slope.shape();
    if (slope_shape.elements() == 1) {
        return slope.reshape(Shape{});
    }
    if (slope_shape == x_shape) {
        return slope;
    }
    if (slope_shape.rank() == 1 && x_shape.rank() >= 2 && slope_shape[0] == x_shape[1]) {
        std::vector<std::size_t> extents(x_shape.rank() - 1, 1);
        extents[0] = slope_shape[0];
        return slope.reshape(Shape(std::span<const std::size_t>(extents)));
    }
    not_handled("PRelu before opset 7 with the slope " + slope_shape.str() + " for the input " +
                x_shape.str() +
                " (neither one slope, one per channel of axis 1, nor one per element)");
}

template <Element T>
void record_prelu(Context<T>& context, const NodeDef& node) {
    const Value<T> x = context.real_value(node, 0);
    Value<T> slope = context.real_value(node, 1);
    if (context.opset() < 7) {
        slope = legacy_slope(slope, x.shape());
    } else if (broadcast_extents(extents_of_shape(x.shape()),
                                 extents_of_shape(slope.shape()),
                                 node) != extents_of_shape(x.shape())) {
        throw ModelError("node " + node.name + " (PRelu): the slope " + slope.shape().str() +
                         " does not broadcast to the input " + x.shape().str());
    }
    context.define(
        node, 0, where(x.less(context.scalar(0)), slope * x, x), context.type_of(node.inputs[0]));
}

// A bound of Clip: an attribute before opset 11, an optional scalar input from it on.
template <Element T>
std::optional<Value<T>> clip_bound(Context<T>& context,
                                   const NodeDef& node,
                                   std::size_t index,
                                   const char* name) {
    if (context.opset() < 11) {
        if (node.attribute(name) == nullptr) {
            return std::nullopt;
        }
        return context.scalar(real_attribute(node, name, 0));
    }
    if (node.attribute(name) != nullptr) {
        throw ModelError("node " + node.name + " (Clip): from opset 11 on, " + name +
                         " is an input, not an attribute");
    }
    if (!Context<T>::has_input(node, index)) {
        return std::nullopt;
    }
    if (context.shape_of(node.inputs[index]).elements() != 1) {
        throw ModelError("node " + node.name + " (Clip): " + name + " must be a scalar, not " +
                         context.shape_of(node.inputs[index]).str());
    }
    if (context.is_constant(node.inputs[index])) {
        return context.scalar(context.constant(node, index).as_reals().at(0));
    }
    return context.real_value(node, index).reshape(Shape{});
}

// Clip over integer constants (opset 12 on), folded.
Constant fold_clip(const Constant& x,
                   const std::optional<Constant>& low,
                   const std::optional<Constant>& high) {
    Constant result = x;
    for (std::int64_t& element : result.integers) {
        if (low) {
            element = std::max(element, low->as_integers().at(0));
        }
        if (high) {
            element = std::min(element, high->as_integers().at(0));
        }
    }
    return result;
}

template <Element T>
void record_clip(Context<T>& context, const NodeDef& node) {
    if (context.opset() >= 11 && integer_constants(context, node)) {
        auto bound = [&](std::size_t index) -> std::optional<Constant> {
            if (!Context<T>::has_input(node, index)) {
                return std::nullopt;
            }
            return context.constant(node, index);
        };
        context.define(node, 0, fold_clip(context.constant(node, 0), bound(1), bound(2)));
        return;
    }
    Value<T> result = context.real_value(node, 0);
    if (const auto low = clip_bound(context, node, 1, "min")) {
        result = result.maximum(*low);
    }
    if (const auto high = clip_bound(context, node, 2, "max")) {
        result = result.minimum(*high);
    }
    context.define(node, 0, result, context.type_of(node.inputs[0]));
}

template <Element T>
void record_relu(Context<T>& context, const NodeDef& node) {
    if (integer_constants(context, node)) {
        Constant result = context.constant(node, 0);
        for (std::int64_t& element : result.integers) {
            element = std::max<std::int64_t>(element, 0);
        }
        context.define(node, 0, result);
        return;
    }
    elementwise(context, node, [](const auto& x) { return x.relu(); });
}

// GELU: x Phi(x), the catalog's Gelu (its erf form), or with approximate=tanh
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as torch.nn.GELU writes
// both. ONNX defines Gelu from opset 20; a graph that uses it at an older opset
// (exported for onnxruntime, say) means the same.
template <Element T>
Value<T> record_gelu(Context<T>& context, const NodeDef& node) {
    const Value<T> x = context.real_value(node, 0);
    const std::string approximate = text_attribute(node, "approximate", "none");
    if (approximate == "none") {
        return x.gelu();
    }
    if (approximate != "tanh") {
        contradiction(node, "approximate=" + approximate + " is neither none nor tanh");
    }
    const Value<T> inner =
        context.scalar(0.7978845608028654) * (x + context.scalar(0.044715) * x * x * x);
    return context.scalar(0.5) * x * (context.scalar(1) + inner.tanh());
}

void add_catalog_rules(RuleTable& table) {
    table.add("Gelu", {"approximate"}, [](auto& context, const NodeDef& node) {
        context.define(node, 0, record_gelu(context, node), context.type_of(node.inputs.at(0)));
    });
    table.add("Relu", {}, [](auto& context, const NodeDef& node) { record_relu(context, node); });
    table.add("Tanh", {}, [](auto& context, const NodeDef& node) {
        elementwise(context, node, [](const auto& x) { return x.tanh(); });
    });
    table.add("Sigmoid", {}, [](auto& context, const NodeDef& node) {
        elementwise(context, node, [](const auto& x) { return x.sigmoid(); });
    });
    table.add(
        "Softplus",
        {},
        [](auto& context, const NodeDef& node) {
            elementwise(context, node, [](const auto& x) { return x.softplus(); });
        },
        1);
    table.add(
        "Softsign",
        {},
        [](auto& context, const NodeDef& node) {
            elementwise(
                context, node, [&](const auto& x) { return x / (context.scalar(1) + x.abs()); });
        },
        1);
    table.add("Clip", {"min", "max"}, [](auto& context, const NodeDef& node) {
        record_clip(context, node);
    });
}

void add_exponential_rules(RuleTable& table) {
    table.add("Elu", {"alpha"}, [](auto& context, const NodeDef& node) {
        const double alpha = real_attribute(node, "alpha", 1.0);
        elementwise(
            context, node, [&](const auto& x) { return exponential_unit(context, x, alpha); });
    });
    table.add("Selu", {"alpha", "gamma"}, [](auto& context, const NodeDef& node) {
        const double alpha = real_attribute(node, "alpha", 1.67326319217681884765625);
        const double gamma = real_attribute(node, "gamma", 1.05070102214813232421875);
        elementwise(context, node, [&](const auto& x) {
            return context.scalar(gamma) * exponential_unit(context, x, alpha);
        });
    });
    table.add("Celu", {"alpha"}, [](auto& context, const NodeDef& node) {
        const double alpha = real_attribute(node, "alpha", 1.0);
        elementwise(context, node, [&](const auto& x) { return celu(context, x, alpha, node); });
    });
}

void add_piecewise_rules(RuleTable& table) {
    table.add("LeakyRelu", {"alpha"}, [](auto& context, const NodeDef& node) {
        const double alpha = real_attribute(node, "alpha", 0.01);
        elementwise(context, node, [&](const auto& x) {
            return where(x.greater(context.scalar(0)), x, context.scalar(alpha) * x);
        });
    });
    table.add("PRelu", {}, [](auto& context, const NodeDef& node) { record_prelu(context, node); });
    table.add("ThresholdedRelu", {"alpha"}, [](auto& context, const NodeDef& node) {
        const double alpha = real_attribute(node, "alpha", 1.0);
        elementwise(context, node, [&](const auto& x) {
            return where(x.greater(context.scalar(alpha)), x, context.scalar(0));
        });
    });
    table.add("Shrink", {"bias", "lambd"}, [](auto& context, const NodeDef& node) {
        const double bias = real_attribute(node, "bias", 0.0);
        const double lambd = real_attribute(node, "lambd", 0.5);
        elementwise(context, node, [&](const auto& x) { return shrink(context, x, bias, lambd); });
    });
    table.add("HardSigmoid", {"alpha", "beta"}, [](auto& context, const NodeDef& node) {
        const double alpha = real_attribute(node, "alpha", 0.2);
        const double beta = real_attribute(node, "beta", 0.5);
        elementwise(
            context, node, [&](const auto& x) { return hard_sigmoid(context, x, alpha, beta); });
    });
    table.add("HardSwish", {}, [](auto& context, const NodeDef& node) {
        elementwise(context, node, [&](const auto& x) {
            return x * hard_sigmoid(context, x, 1.0 / 6, 0.5);
        });
    });
}

}  // namespace

void add_activation_rules(RuleTable& table) {
    add_catalog_rules(table);
    add_exponential_rules(table);
    add_piecewise_rules(table);
}

}  // namespace topos::onnx::detail
