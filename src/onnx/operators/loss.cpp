// Classification losses (opsets 12 and 13): NegativeLogLikelihoodLoss over
// log-probabilities, SoftmaxCrossEntropyLoss over scores (their log_softmax
// along the class axis, its optional second output). Input [N, C, d1, ...],
// target [N, d1, ...] of class indices: a 0/1 mask along the class axis picks
// each sample's element exactly (one element summed with zeros), ignored
// samples' rows zeroed, then weighted and reduced as ONNX says.
#include "onnx/context.hpp"
#include "onnx/rules.hpp"
#include <topos/onnx/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos::onnx::detail {
namespace {

using Extents = std::vector<std::int64_t>;

enum class LossReduction : std::uint8_t {
    None,
    Sum,
    Mean,
};

// What the node's attributes ask: the reduction, and the class it ignores if any.
struct LossAttributes {
    LossReduction reduction = LossReduction::Mean;
    std::optional<std::int64_t> ignore_index;
};

LossAttributes loss_attributes(const NodeDef& node) {
    LossAttributes attributes;
    const std::string reduction = text_attribute(node, "reduction", "mean");
    if (reduction == "none") {
        attributes.reduction = LossReduction::None;
    } else if (reduction == "sum") {
        attributes.reduction = LossReduction::Sum;
    } else if (reduction != "mean") {
        contradiction(node, "reduction \"" + reduction + "\" is none of none, sum and mean");
    }
    if (node.attribute("ignore_index") != nullptr) {
        attributes.ignore_index = integer_attribute(node, "ignore_index", 0);
    }
    return attributes;
}

// Checks input [N, C, d...], target [N, d...] of int32 or int64, weight [C];
// returns the number of classes C.
template <Element T>
std::int64_t class_count(const Context<T>& context, const NodeDef& node) {
    if (!Context<T>::has_input(node, 0) || !Context<T>::has_input(node, 1)) {
        contradiction(node, "needs its input and its target");
    }
    const Extents input = extents_of_shape(context.shape_of(node.inputs[0]));
    if (input.size() < 2) {
        contradiction(node, "the input needs rank 2 or more ([N, C, d1, ...])");
    }
    Extents samples = input;
    samples.erase(samples.begin() + 1);
    if (extents_of_shape(context.shape_of(node.inputs[1])) != samples) {
        contradiction(node,
                      "the target " + context.shape_of(node.inputs[1]).str() +
                          " is not the input's extents without the class axis, " +
                          shape_of_extents(samples).str());
    }
    const DataType target_type = context.type_of(node.inputs[1]);
    if (target_type != DataType::Int32 && target_type != DataType::Int64) {
        contradiction(
            node,
            "the target's element type " + type_name(target_type) + " is neither int32 nor int64");
    }
    if (Context<T>::has_input(node, 2) &&
        extents_of_shape(context.shape_of(node.inputs[2])) != Extents{input[1]}) {
        contradiction(node,
                      "the weight " + context.shape_of(node.inputs[2]).str() +
                          " is not one per class, [" + std::to_string(input[1]) + "]");
    }
    return input[1];
}

// The mask of constant targets in the input's layout [N, C, d...]: 1 at each
// sample's class, a zero row for a sample holding ignore_index.
Constant mask_of_constant_targets(const Constant& targets,
                                  std::int64_t classes,
                                  std::optional<std::int64_t> ignore_index,
                                  const NodeDef& node) {
    const std::int64_t samples = targets.extents.at(0);
    const std::int64_t inner =
        samples == 0 ? 0 : static_cast<std::int64_t>(targets.elements()) / samples;
    Constant mask;
    mask.type = DataType::Bool;
    mask.extents = targets.extents;
    mask.extents.insert(mask.extents.begin() + 1, classes);
    mask.integers.assign(folded_elements(mask.extents), 0);
    for (std::size_t at = 0; at < targets.integers.size(); ++at) {
        const std::int64_t target = targets.integers[at];
        if (target == ignore_index) {
            continue;
        }
        if (target < 0 || target >= classes) {
            contradiction(node,
                          "the target " + std::to_string(target) + " is outside [0, " +
                              std::to_string(classes) + ") and is not ignore_index");
        }
        const auto sample = static_cast<std::int64_t>(at) / inner;
        const auto position = static_cast<std::int64_t>(at) % inner;
        mask.integers[static_cast<std::size_t>((sample * classes + target) * inner + position)] = 1;
    }
    return mask;
}

// [C] as [C, 1, ..., 1]: per class against an [N, C, d...] value of `rank`.
template <Element T>
Value<T> per_class(const Value<T>& vector, std::size_t rank) {
    std::vector<std::size_t> extents(rank - 1, 1);
    extents[0] = vector.shape()[0];
    return vector.reshape(Shape(std::span<const std::size_t>(extents)));
}

// one_hot's [N, d..., C] with its class axis moved to 1: [N, C, d...].
template <Element T>
Value<T> class_axis_second(const Value<T>& one_hot) {
    const std::size_t rank = one_hot.shape().rank();
    if (rank == 2) {
        return one_hot;
    }
    std::vector<std::size_t> order{0, rank - 1};
    for (std::size_t axis = 1; axis + 1 < rank; ++axis) {
        order.push_back(axis);
    }
    return one_hot.permute(Axes(std::span<const std::size_t>(order)));
}

// Targets known only at run time go through topos's one_hot, which stops at a
// target outside [0, C): an ignore_index there has no exact composition.
template <Element T>
Value<T> mask_of_run_time_targets(Context<T>& context,
                                  const NodeDef& node,
                                  std::int64_t classes,
                                  std::optional<std::int64_t> ignore_index) {
    const bool ignores_a_class = ignore_index && *ignore_index >= 0 && *ignore_index < classes;
    if (ignore_index && !ignores_a_class) {
        not_handled(
            "ignore_index outside the classes with targets computed at run time, where "
            "topos's one_hot stops at a target outside [0, " +
            std::to_string(classes) + ") such as ignore_index " + std::to_string(*ignore_index) +
            ": no exact mask skips such a sample");
    }
    Value<T> mask =
        class_axis_second(context.index_value(node, 1).one_hot(static_cast<std::size_t>(classes)));
    if (!ignores_a_class) {
        return mask;
    }
    std::vector<double> kept(static_cast<std::size_t>(classes), 1.0);
    kept[static_cast<std::size_t>(*ignore_index)] = 0.0;
    const Value<T> kept_classes =
        context.leaf(Constant::of_reals(DataType::Bool, Extents{classes}, kept));
    return mask * per_class(kept_classes, mask.shape().rank());
}

template <Element T>
Value<T> class_mask(Context<T>& context,
                    const NodeDef& node,
                    std::int64_t classes,
                    std::optional<std::int64_t> ignore_index) {
    if (context.is_constant(node.inputs[1])) {
        return context.leaf(
            mask_of_constant_targets(context.constant(node, 1), classes, ignore_index, node));
    }
    return mask_of_run_time_targets(context, node, classes, ignore_index);
}

// The element of each sample's masked class: [N, C, d...] to [N, d...].
template <Element T>
Value<T> picked(Context<T>& context, const Value<T>& mask, const Value<T>& values) {
    return where(mask, values, context.scalar(0)).sum(1);
}

// The loss of log-probabilities [N, C, d...]: -log_probability[target] (times
// weight[target]) per sample, reduced; mean divides by the sum of the picked
// weights (without weights but with ignore_index, the count of samples kept).
template <Element T>
Value<T> negative_log_likelihood(Context<T>& context,
                                 const NodeDef& node,
                                 const Value<T>& log_probabilities) {
    const std::int64_t classes = class_count(context, node);
    const LossAttributes attributes = loss_attributes(node);
    const Value<T> mask = class_mask(context, node, classes, attributes.ignore_index);
    Value<T> losses = -picked(context, mask, log_probabilities);
    std::optional<Value<T>> weights;
    if (Context<T>::has_input(node, 2)) {
        weights =
            picked(context, mask, per_class(context.real_value(node, 2), mask.shape().rank()));
        losses = losses * *weights;
    }
    switch (attributes.reduction) {
        case LossReduction::None:
            return losses;
        case LossReduction::Sum:
            return losses.sum();
        case LossReduction::Mean:
            break;
    }
    if (!weights && !attributes.ignore_index) {
        return losses.mean();
    }
    return losses.sum() / (weights ? weights->sum() : mask.sum());
}

template <Element T>
void record_negative_log_likelihood(Context<T>& context, const NodeDef& node) {
    const Value<T> loss = negative_log_likelihood(context, node, context.real_value(node, 0));
    context.define(node, 0, loss, context.type_of(node.inputs[0]));
}

template <Element T>
void record_softmax_cross_entropy(Context<T>& context, const NodeDef& node) {
    const Value<T> log_probabilities = context.real_value(node, 0).log_softmax(1);
    const DataType type = context.type_of(node.inputs[0]);
    context.define(node, 0, negative_log_likelihood(context, node, log_probabilities), type);
    if (has_output(node, 1)) {
        context.define(node, 1, log_probabilities, type);
    }
}

}  // namespace

void add_loss_rules(RuleTable& table) {
    table.add(
        "NegativeLogLikelihoodLoss",
        {"reduction", "ignore_index"},
        [](auto& context, const NodeDef& node) { record_negative_log_likelihood(context, node); },
        12);
    table.add(
        "SoftmaxCrossEntropyLoss",
        {"reduction", "ignore_index"},
        [](auto& context, const NodeDef& node) { record_softmax_cross_entropy(context, node); },
        12);
}

}  // namespace topos::onnx::detail
