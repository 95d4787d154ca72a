// DataParallel::shard and value_and_gradients: each rank's contiguous share of
// the batch rows (the first rows % ranks ranks taking one more), a check in
// one collective that every rank passes the same global batch and parameter
// shapes and micro-batch count, then by rank one all_reduce of the loss and
// gradients, each weighted by the rank's share, or by micro-batch each rank's
// micro-batches summed in the tree's nodes and the nodes in the tree.
#include "distributed/agreement.hpp"
#include <topos/distributed/data_parallel.hpp>

#include <array>
#include <string>
#include <vector>

namespace topos::distributed {

template <ComputeElement T>
data::BatchRange DataParallel<T>::shard(std::size_t rows) const {
    const auto ranks = static_cast<std::size_t>(world_.size());
    const auto me = static_cast<std::size_t>(world_.rank());
    const std::size_t base = rows / ranks;
    const std::size_t longer = rows % ranks;
    return {me * base + (me < longer ? me : longer), base + (me < longer ? 1 : 0)};
}

template <ComputeElement T>
ValueAndGradients<T> DataParallel<T>::value_and_gradients(const Parameters<T>& parameters,
                                                          std::span<const Tensor<T>> inputs) const {
    const std::array agreements{
        detail::shapes_of(inputs, "the global batch (every input's shape)"),
        detail::shapes_of(parameters.values(), "the parameters' shapes"),
        detail::element_count(options_.micro_batches, "the number of micro-batches")};
    world_.check_agreement(agreements);
    if (inputs.empty() || inputs.front().shape().rank() == 0) {
        throw Error("a data-parallel step needs inputs whose first axis is the batch");
    }
    return options_.micro_batches > 0 ? by_micro_batch(parameters, inputs)
                                      : by_rank(parameters, inputs);
}

template <ComputeElement T>
ValueAndGradients<T> DataParallel<T>::by_micro_batch(const Parameters<T>& parameters,
                                                     std::span<const Tensor<T>> inputs) const {
    const data::MicroBatches cut(inputs.front().shape()[0], options_.micro_batches);
    const data::BatchRange mine = cut.held_by(static_cast<std::size_t>(world_.rank()),
                                              static_cast<std::size_t>(world_.size()));
    std::vector<std::vector<T>> nodes;
    for (const data::BatchRange& node : cut.covering(mine)) {
        nodes.push_back(data::streamed_tree_value<T>(node, [&](std::size_t m) {
            return data::weighted_micro_batch(loss_, parameters, inputs, cut, m);
        }));
    }
    std::size_t elements = 1;
    for (const Tensor<T>& value : parameters.values()) {
        elements += value.elements();
    }
    const std::vector<T> summed =
        world_.sum_in_tree(cut, std::span<const std::vector<T>>(nodes), elements);
    return data::unflattened_step(parameters, std::span<const T>(summed));
}

template <ComputeElement T>
ValueAndGradients<T> DataParallel<T>::by_rank(const Parameters<T>& parameters,
                                              std::span<const Tensor<T>> inputs) const {
    const std::size_t rows = inputs.front().shape()[0];
    if (rows < static_cast<std::size_t>(world_.size())) {
        throw Error("a global batch of " + std::to_string(rows) + (rows == 1 ? " row" : " rows") +
                    " cannot be shared among " + std::to_string(world_.size()) +
                    " ranks: give each rank a row at least (a short last batch? "
                    "data::LoaderOptions{.drop_last = true} drops it)");
    }
    const data::BatchRange mine = shard(rows);
    std::vector<Tensor<T>> local;
    for (const Tensor<T>& input : inputs) {
        if (input.shape().rank() == 0 || input.shape()[0] != rows) {
            throw Error("every input of a data-parallel step has the batch's " +
                        std::to_string(rows) + " rows first; one is " + input.shape().str());
        }
        local.push_back(input.narrow(0, mine.start, mine.count));
    }
    const ValueAndGradients<T> step = loss_.value_and_gradients(parameters, local);
    // This rank's share of the global mean: n_r / B, exact when it is a power of two.
    const auto weight = static_cast<T>(static_cast<double>(mine.count) / static_cast<double>(rows));
    const std::vector<T> buffer = data::weighted_flat(step, weight);
    const std::vector<T> summed = world_.sum_in_rank_order(std::span<const T>(buffer));
    return data::unflattened_step(step.gradients, std::span<const T>(summed));
}

template class DataParallel<float>;
template class DataParallel<double>;

}  // namespace topos::distributed
