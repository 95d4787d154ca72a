// data::MicroBatches (rows of each micro-batch, each holder's share, the tree's
// nodes) and the loss and gradients of a global batch summed over its
// micro-batches in the tree.
#include <topos/core/error.hpp>
#include <topos/data/micro_batches.hpp>

#include <algorithm>
#include <bit>
#include <string>

namespace topos::data {
namespace {

// `total` items cut into `parts` contiguous ranges, the first total % parts
// one longer: range `index`.
BatchRange share(std::size_t total, std::size_t parts, std::size_t index) {
    const std::size_t base = total / parts;
    const std::size_t longer = total % parts;
    return {index * base + std::min(index, longer), base + (index < longer ? 1 : 0)};
}

void cover(BatchRange node, BatchRange wanted, std::vector<BatchRange>& nodes) {
    const std::size_t end = node.start + node.count;
    const std::size_t wanted_end = wanted.start + wanted.count;
    if (end <= wanted.start || node.start >= wanted_end) {
        return;
    }
    if (node.start >= wanted.start && end <= wanted_end) {
        nodes.push_back(node);
        return;
    }
    const auto [left, right] = MicroBatches::children(node);
    cover(left, wanted, nodes);
    cover(right, wanted, nodes);
}

}  // namespace

MicroBatches::MicroBatches(std::size_t rows, std::size_t count) : rows_(rows), count_(count) {
    if (count == 0) {
        throw Error("a batch is cut into one micro-batch at least, not 0");
    }
    if (rows < count) {
        throw Error("a batch of " + std::to_string(rows) + (rows == 1 ? " row" : " rows") +
                    " cannot be cut into " + std::to_string(count) +
                    " micro-batches: each needs a row at least");
    }
}

BatchRange MicroBatches::rows_of(std::size_t index) const {
    return share(rows_, count_, index);
}

BatchRange MicroBatches::held_by(std::size_t holder, std::size_t holders) const {
    return share(count_, holders, holder);
}

double MicroBatches::weight_of(std::size_t index) const {
    return static_cast<double>(rows_of(index).count) / static_cast<double>(rows_);
}

template <Element T>
std::vector<Tensor<T>> MicroBatches::inputs_of(std::span<const Tensor<T>> inputs,
                                               std::size_t index) const {
    return rows_of_inputs(inputs, rows_, rows_of(index), "a micro-batched step");
}

std::vector<BatchRange> MicroBatches::covering(BatchRange micro_batches) const {
    std::vector<BatchRange> nodes;
    if (micro_batches.count > 0) {
        cover(root(), micro_batches, nodes);
    }
    return nodes;
}

std::pair<BatchRange, BatchRange> MicroBatches::children(BatchRange node) {
    const std::size_t left = std::bit_floor(node.count - 1);
    return {{node.start, left}, {node.start + left, node.count - left}};
}

template <Element T>
std::vector<Tensor<T>> rows_of_inputs(std::span<const Tensor<T>> inputs,
                                      std::size_t rows,
                                      BatchRange range,
                                      std::string_view step) {
    std::vector<Tensor<T>> local;
    for (const Tensor<T>& input : inputs) {
        if (input.shape().rank() == 0 || input.shape()[0] != rows) {
            throw Error("every input of " + std::string(step) + " has the batch's " +
                        std::to_string(rows) + " rows first; one is " + input.shape().str());
        }
        local.push_back(input.narrow(0, range.start, range.count));
    }
    return local;
}

template <class T>
std::vector<T> tree_value(
    BatchRange node,
    const std::map<std::pair<std::size_t, std::size_t>, std::span<const T>>& known) {
    const auto found = known.find({node.start, node.count});
    if (found != known.end()) {
        return {found->second.begin(), found->second.end()};
    }
    if (node.count < 2) {
        throw Error("the micro-batch tree has no value for micro-batch " +
                    std::to_string(node.start));
    }
    const auto [left_node, right_node] = MicroBatches::children(node);
    std::vector<T> sum = tree_value(left_node, known);
    const std::vector<T> right = tree_value(right_node, known);
    for (std::size_t i = 0; i < sum.size(); ++i) {
        sum[i] += right[i];
    }
    return sum;
}

template <ComputeElement T>
std::vector<T> weighted_micro_batch(const Function<T>& loss,
                                    const Parameters<T>& parameters,
                                    std::span<const Tensor<T>> inputs,
                                    const MicroBatches& micro_batches,
                                    std::size_t index) {
    const std::vector<Tensor<T>> local = micro_batches.inputs_of(inputs, index);
    // The micro-batch's share of the global mean: exact when it is a power of two.
    const auto weight = static_cast<T>(micro_batches.weight_of(index));
    return weighted_flat(loss.value_and_gradients(parameters, local), weight);
}

template <ComputeElement T>
std::vector<T> weighted_flat(const ValueAndGradients<T>& step, T weight) {
    std::size_t elements = 1;
    for (const Tensor<T>& gradient : step.gradients.values()) {
        elements += gradient.elements();
    }
    std::vector<T> flat(elements);
    flat.front() = step.value.item() * weight;
    auto next = flat.begin() + 1;
    for (const Tensor<T>& gradient : step.gradients.values()) {
        next = std::transform(
            gradient.data().begin(), gradient.data().end(), next, [weight](T element) {
                return element * weight;
            });
    }
    return flat;
}

template <ComputeElement T>
ValueAndGradients<T> unflattened_step(const Parameters<T>& like, std::span<const T> flat) {
    std::vector<Tensor<T>> gradients;
    std::size_t offset = 1;
    for (const Tensor<T>& value : like.values()) {
        gradients.emplace_back(value.shape(), flat.subspan(offset, value.elements()));
        offset += value.elements();
    }
    return {Tensor<T>(flat.front()), like.with_values(std::move(gradients))};
}

template <ComputeElement T>
ValueAndGradients<T> value_and_gradients_in_micro_batches(const Function<T>& loss,
                                                          const Parameters<T>& parameters,
                                                          std::span<const Tensor<T>> inputs,
                                                          std::size_t micro_batches) {
    if (inputs.empty() || inputs.front().shape().rank() == 0) {
        throw Error("a micro-batched step needs inputs whose first axis is the batch");
    }
    const MicroBatches cut(inputs.front().shape()[0], micro_batches);
    const std::vector<T> sum = streamed_tree_value<T>(cut.root(), [&](std::size_t m) {
        return weighted_micro_batch(loss, parameters, inputs, cut, m);
    });
    return unflattened_step(parameters, std::span<const T>(sum));
}

template std::vector<Tensor<float>> rows_of_inputs(std::span<const Tensor<float>>,
                                                   std::size_t,
                                                   BatchRange,
                                                   std::string_view);
template std::vector<Tensor<double>> rows_of_inputs(std::span<const Tensor<double>>,
                                                    std::size_t,
                                                    BatchRange,
                                                    std::string_view);
template std::vector<Tensor<float>> MicroBatches::inputs_of(std::span<const Tensor<float>>,
                                                            std::size_t) const;
template std::vector<Tensor<double>> MicroBatches::inputs_of(std::span<const Tensor<double>>,
                                                             std::size_t) const;
template std::vector<float> tree_value(
    BatchRange, const std::map<std::pair<std::size_t, std::size_t>, std::span<const float>>&);
template std::vector<double> tree_value(
    BatchRange, const std::map<std::pair<std::size_t, std::size_t>, std::span<const double>>&);
template std::vector<float> weighted_micro_batch(const Function<float>&,
                                                 const Parameters<float>&,
                                                 std::span<const Tensor<float>>,
                                                 const MicroBatches&,
                                                 std::size_t);
template std::vector<double> weighted_micro_batch(const Function<double>&,
                                                  const Parameters<double>&,
                                                  std::span<const Tensor<double>>,
                                                  const MicroBatches&,
                                                  std::size_t);
template std::vector<float> weighted_flat(const ValueAndGradients<float>&, float);
template std::vector<double> weighted_flat(const ValueAndGradients<double>&, double);
template ValueAndGradients<float> unflattened_step(const Parameters<float>&,
                                                   std::span<const float>);
template ValueAndGradients<double> unflattened_step(const Parameters<double>&,
                                                    std::span<const double>);
template ValueAndGradients<float> value_and_gradients_in_micro_batches(
    const Function<float>&, const Parameters<float>&, std::span<const Tensor<float>>, std::size_t);
template ValueAndGradients<double> value_and_gradients_in_micro_batches(
    const Function<double>&,
    const Parameters<double>&,
    std::span<const Tensor<double>>,
    std::size_t);

}  // namespace topos::data
