// Normalization: BatchNormalization in its inference form (the statistics
// given; topos::batch_norm_inference where they are per channel), and the
// normalizations over statistics of the input itself: InstanceNormalization
// (per sample and channel), LayerNormalization (over the trailing axes, with
// its optional Mean and InvStdDev outputs) and MeanVarianceNormalization.
#include "onnx/context.hpp"
#include "onnx/rules.hpp"
#include <topos/graph/compositions.hpp>
#include <topos/onnx/errors.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace topos::onnx::detail {
namespace {

Axes axes_from(std::size_t first, std::size_t rank) {
    std::vector<std::size_t> axes;
    for (std::size_t axis = first; axis < rank; ++axis) {
        axes.push_back(axis);
    }
    return Axes(std::span<const std::size_t>(axes));
}

// [C] as [C, 1, ..., 1]: per channel against an [N, C, ...] value of `rank`.
template <Element T>
Value<T> per_channel(const Value<T>& vector, std::size_t rank) {
    std::vector<std::size_t> extents(rank - 1, 1);
    extents[0] = vector.shape()[0];
    return vector.reshape(Shape(std::span<const std::size_t>(extents)));
}

// Refuses what the opset's attributes and outputs ask beyond inference.
void require_inference(const NodeDef& node, std::int64_t opset) {
    if (opset >= 14) {
        if (integer_attribute(node, "training_mode", 0) != 0) {
            not_handled("training_mode=1 (statistics of the batch, running statistics updated)");
        }
        if (has_output(node, 1) || has_output(node, 2)) {
            contradiction(node, "the outputs running_mean and running_var need training_mode=1");
        }
        return;
    }
    if (opset < 7 && integer_attribute(node, "is_test", 0) == 0) {
        not_handled("is_test=0 (training mode: statistics of the batch)");
    }
    for (std::size_t index = 1; index < node.outputs.size(); ++index) {
        if (has_output(node, index)) {
            not_handled("the outputs mean, var, saved_mean and saved_var (training mode)");
        }
    }
}

// spatial=0 (opsets 6 to 8): statistics per activation, [C, D1, ...] each.
template <Element T>
Value<T> per_activation_norm(Context<T>& context, const NodeDef& node, double epsilon) {
    const Value<T> input = context.real_value(node, 0);
    if (input.shape().rank() < 2) {
        contradiction(node,
                      "the input " + input.shape().str() + " needs a batch and a channel axis");
    }
    const Shape expected = input.shape().without_axis(0);
    std::vector<Value<T>> operands;
    for (std::size_t index = 1; index <= 4; ++index) {
        const Value<T> operand = context.real_value(node, index);
        if (operand.shape() != expected) {
            contradiction(node,
                          "with spatial=0 input " + std::to_string(index) + " " +
                              operand.shape().str() + " must be " + expected.str());
        }
        operands.push_back(operand.unsqueeze(0));
    }
    const Value<T> scale = (operands[3] + context.scalar(epsilon)).rsqrt() * operands[0];
    return (input - operands[2]) * scale + operands[1];
}

template <Element T>
void record_batch_norm(Context<T>& context, const NodeDef& node) {
    require_inference(node, context.opset());
    const double epsilon = real_attribute(node, "epsilon", 1e-5);
    const DataType type = context.type_of(node.inputs.at(0));
    if (context.opset() < 9 && integer_attribute(node, "spatial", 1) == 0) {
        context.define(node, 0, per_activation_norm(context, node, epsilon), type);
        return;
    }
    const Value<T> input = context.real_value(node, 0);
    const Shape shape = input.shape();
    std::vector<Value<T>> vectors;
    for (std::size_t index = 1; index <= 4; ++index) {
        vectors.push_back(context.real_value(node, index));
        if (shape.rank() < 2 || vectors.back().shape() != Shape{shape[1]}) {
            contradiction(node,
                          "input " + std::to_string(index) + " " + vectors.back().shape().str() +
                              " must hold one value per channel of " + shape.str());
        }
    }
    context.define(
        node,
        0,
        batch_norm_inference(input, vectors[0], vectors[1], vectors[2], vectors[3], epsilon),
        type);
}

// (x - mean) * rsqrt(variance + epsilon) over `axes`, and the statistics.
template <Element T>
struct Standardized {
    Value<T> output;
    Value<T> mean;
    Value<T> inverse_deviation;
};

template <Element T>
Standardized<T> standardize(Context<T>& context,
                            const Value<T>& input,
                            const Axes& axes,
                            double epsilon) {
    const Value<T> mean = input.mean(axes, true);
    const Value<T> centred = input - mean;
    const Value<T> variance = centred.square().mean(axes, true);
    const Value<T> inverse_deviation = (variance + context.scalar(epsilon)).rsqrt();
    return {centred * inverse_deviation, mean, inverse_deviation};
}

template <Element T>
void record_instance_norm(Context<T>& context, const NodeDef& node) {
    const Value<T> input = context.real_value(node, 0);
    const Shape shape = input.shape();
    const Value<T> scale = context.real_value(node, 1);
    const Value<T> shift = context.real_value(node, 2);
    if (shape.rank() < 3 || scale.shape() != Shape{shape[1]} || shift.shape() != Shape{shape[1]}) {
        contradiction(node,
                      "the input " + shape.str() + " must be [N, C, spatial axes...] and " +
                          "the scale " + scale.shape().str() + " and B " + shift.shape().str() +
                          " one value per channel");
    }
    const double epsilon = real_attribute(node, "epsilon", 1e-5);
    const Value<T> normalized =
        standardize(context, input, axes_from(2, shape.rank()), epsilon).output;
    context.define(node,
                   0,
                   normalized * per_channel(scale, shape.rank()) + per_channel(shift, shape.rank()),
                   context.type_of(node.inputs[0]));
}

// stash_type names the precision of the statistics: float32 (the default),
// which every tape meets or exceeds but bf16's, or the tape's own type.
template <Element T>
DataType statistics_type(const NodeDef& node) {
    const auto stash = static_cast<DataType>(integer_attribute(node, "stash_type", 1));
    const DataType own = std::is_same_v<T, float>    ? DataType::Float
                         : std::is_same_v<T, double> ? DataType::Double
                                                     : DataType::Bfloat16;
    const bool met = stash == own || (stash == DataType::Float && own != DataType::Bfloat16);
    if (!met) {
        not_handled("stash_type=" + type_name(stash) + " statistics on a tape of " +
                    type_name(own));
    }
    return stash;
}

template <Element T>
void record_layer_norm(Context<T>& context, const NodeDef& node) {
    if (context.opset() < 17) {
        contradiction(node, "LayerNormalization is an operator of opsets 17 on");
    }
    const DataType stash = statistics_type<T>(node);
    const Value<T> input = context.real_value(node, 0);
    const std::size_t rank = input.shape().rank();
    const std::int64_t axis = integer_attribute(node, "axis", -1);
    const std::size_t first =
        axis == static_cast<std::int64_t>(rank) ? rank : axis_in(axis, rank, node);
    const auto standardized =
        standardize(context, input, axes_from(first, rank), real_attribute(node, "epsilon", 1e-5));
    Value<T> output = standardized.output * context.real_value(node, 1);
    if (Context<T>::has_input(node, 2)) {
        output = output + context.real_value(node, 2);
    }
    context.define(node, 0, output, context.type_of(node.inputs[0]));
    context.define(node, 1, standardized.mean, stash);
    context.define(node, 2, standardized.inverse_deviation, stash);
}

// ONNX's function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
template <Element T>
void record_mean_variance_norm(Context<T>& context, const NodeDef& node) {
    if (context.opset() < 9) {
        contradiction(node, "MeanVarianceNormalization is an operator of opsets 9 on");
    }
    const Value<T> input = context.real_value(node, 0);
    const auto given =
        integers_attribute(node, "axes").value_or(std::vector<std::int64_t>{0, 2, 3});
    std::vector<std::size_t> axes;
    axes.reserve(given.size());
    for (const std::int64_t axis : given) {
        axes.push_back(axis_in(axis, input.shape().rank(), node));
    }
    const Axes reduced{std::span<const std::size_t>(axes)};
    const Value<T> mean = input.mean(reduced, true);
    const Value<T> variance = input.square().mean(reduced, true) - mean.square();
    const Value<T> deviation = variance.sqrt() + context.scalar(1e-9);
    context.define(node, 0, (input - mean) / deviation, context.type_of(node.inputs[0]));
}

}  // namespace

void add_normalization_rules(RuleTable& table) {
    // momentum only updates running statistics, which inference leaves alone.
    table.add("BatchNormalization",
              {"epsilon", "is_test", "momentum", "spatial", "training_mode"},
              [](auto& context, const NodeDef& node) { record_batch_norm(context, node); });
    table.add("InstanceNormalization", {"epsilon"}, [](auto& context, const NodeDef& node) {
        record_instance_norm(context, node);
    });
    table.add("LayerNormalization",
              {"axis", "epsilon", "stash_type"},
              [](auto& context, const NodeDef& node) { record_layer_norm(context, node); });
    table.add("MeanVarianceNormalization", {"axes"}, [](auto& context, const NodeDef& node) {
        record_mean_variance_norm(context, node);
    });
}

}  // namespace topos::onnx::detail
