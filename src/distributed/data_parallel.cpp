// DataParallel::shard and value_and_gradients: each rank's contiguous share of
// the batch rows (the first rows % ranks ranks taking one more), a check in
// one collective that every rank passes the same global batch and parameter
// shapes and micro-batch count, then each rank's pieces (its weighted rows by
// rank; its micro-batches summed in the tree's nodes by micro-batch), the last
// pass written into them range by range as its plan finishes each gradient,
// and summed over the ranks in buckets (BucketedSum) meanwhile.
#include "distributed/agreement.hpp"
#include "distributed/bucketed_sum.hpp"
#include "distributed/environment.hpp"
#include <topos/distributed/data_parallel.hpp>

#include <array>
#include <string>
#include <vector>

namespace topos::distributed {
namespace {

// A duplicate of `world`, freed with the last DataParallel holding it (unless
// MPI is finalised by then).
std::shared_ptr<const MPI_Comm> duplicate(MPI_Comm world) {
    MPI_Comm copy = MPI_COMM_NULL;
    detail::check(MPI_Comm_dup(world, &copy), "MPI_Comm_dup");
    detail::check(MPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    return {new MPI_Comm(copy), [](const MPI_Comm* communicator) {
                int finalized = 0;
                MPI_Finalized(&finalized);
                if (finalized == 0) {
                    MPI_Comm freed = *communicator;
                    MPI_Comm_free(&freed);
                }
                delete communicator;
            }};
}

// The loss, then one part per parameter slot, in buckets.
template <ComputeElement T>
detail::BucketLayout layout_of(const Parameters<T>& parameters,
                               const DataParallelOptions& options) {
    std::vector<std::size_t> parts{1};
    for (const Tensor<T>& value : parameters.values()) {
        parts.push_back(value.elements());
    }
    return detail::BucketLayout::of(parts, sizeof(T), options.overlap, options.bucket_bytes);
}

// This rank's last pass: `loss` at `inputs`, each output weighted by `weight`
// and folded with what `pending` holds into the rank's last piece as the plan
// finishes it, the sum's messages moved on after every step.
template <ComputeElement T>
void last_pass(const Function<T>& loss,
               const Parameters<T>& parameters,
               std::span<const Tensor<T>> inputs,
               T weight,
               const data::StreamedTree<T>& pending,
               const detail::BucketLayout& layout,
               detail::BucketedSum<T>& sum) {
    const std::span<T> piece = sum.piece(sum.pieces() - 1);
    (void)loss.value_and_gradients(
        parameters, inputs, [&](std::span<const FinishedOutput<T>> finished) {
            for (const FinishedOutput<T>& output : finished) {
                const std::size_t part = output.slot ? *output.slot + 1 : 0;
                const std::size_t offset = layout.part_offsets[part];
                for (std::size_t i = 0; i < output.elements.size(); ++i) {
                    piece[offset + i] = pending.with_last(offset + i, output.elements[i] * weight);
                }
                sum.ready(part);
            }
            sum.progress();
        });
}

}  // namespace

template <ComputeElement T>
DataParallel<T>::DataParallel(Communicator world, Function<T> loss, DataParallelOptions options)
    : world_(world),
      channel_(duplicate(world.handle())),
      loss_(std::move(loss)),
      options_(options) {}

template <ComputeElement T>
detail::BucketedSum<T>& DataParallel<T>::sum_for(const Parameters<T>& parameters,
                                                 std::vector<std::vector<data::BatchRange>> held,
                                                 bool tree,
                                                 data::BatchRange root) const {
    detail::BucketLayout layout = layout_of(parameters, options_);
    if (sum_ && sum_->layout().part_offsets == layout.part_offsets &&
        sum_->pieces() == held[static_cast<std::size_t>(world_.rank())].size()) {
        sum_->restart();
        return *sum_;
    }
    sum_ = std::make_shared<detail::BucketedSum<T>>(
        *channel_,
        std::move(layout),
        std::move(held),
        tree ? detail::SumOrder::Tree : detail::SumOrder::Ranks,
        root,
        options_.simulated_link);
    return *sum_;
}

template <ComputeElement T>
std::vector<std::size_t> DataParallel<T>::bucket_sizes() const {
    std::vector<std::size_t> sizes;
    if (sum_) {
        const detail::BucketLayout& layout = sum_->layout();
        for (const std::vector<std::size_t>& bucket : layout.buckets) {
            std::size_t elements = 0;
            for (std::size_t part : bucket) {
                elements += layout.part_offsets[part + 1] - layout.part_offsets[part];
            }
            sizes.push_back(elements * sizeof(T));
        }
    }
    return sizes;
}

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
    const auto ranks = static_cast<std::size_t>(world_.size());
    std::vector<std::vector<data::BatchRange>> held(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        held[r] = cut.covering(cut.held_by(r, ranks));
    }
    const std::vector<data::BatchRange> nodes = held[static_cast<std::size_t>(world_.rank())];
    detail::BucketedSum<T>& sum = sum_for(parameters, std::move(held), true, cut.root());
    const detail::BucketLayout& layout = sum.layout();
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        const std::size_t last = nodes[k].start + nodes[k].count - 1;
        data::StreamedTree<T> tree;
        for (std::size_t m = nodes[k].start; m < last; ++m) {
            tree.push(data::weighted_micro_batch(loss_, parameters, inputs, cut, m));
        }
        if (k + 1 < nodes.size()) {
            tree.push(data::weighted_micro_batch(loss_, parameters, inputs, cut, last));
            const std::vector<T> value = std::move(tree).sum();
            std::copy(value.begin(), value.end(), sum.piece(k).begin());
        } else {
            const std::vector<Tensor<T>> local = cut.inputs_of(inputs, last);
            last_pass(loss_,
                      parameters,
                      std::span<const Tensor<T>>(local),
                      static_cast<T>(cut.weight_of(last)),
                      tree,
                      layout,
                      sum);
        }
    }
    if (nodes.empty()) {  // more ranks than micro-batches: this one holds none
        for (std::size_t part = 0; part < layout.parts(); ++part) {
            sum.ready(part);
        }
    }
    const std::span<const T> summed = sum.finish();
    bytes_sent_ = sum.bytes_sent();
    return data::unflattened_step(parameters, summed);
}

template <ComputeElement T>
ValueAndGradients<T> DataParallel<T>::by_rank(const Parameters<T>& parameters,
                                              std::span<const Tensor<T>> inputs) const {
    const std::size_t rows = inputs.front().shape()[0];
    const auto ranks = static_cast<std::size_t>(world_.size());
    if (rows < ranks) {
        throw Error("a global batch of " + std::to_string(rows) + (rows == 1 ? " row" : " rows") +
                    " cannot be shared among " + std::to_string(world_.size()) +
                    " ranks: give each rank a row at least (a short last batch? "
                    "data::LoaderOptions{.drop_last = true} drops it)");
    }
    const data::BatchRange mine = shard(rows);
    const std::vector<Tensor<T>> local =
        data::rows_of_inputs(inputs, rows, mine, "a data-parallel step");
    std::vector<std::vector<data::BatchRange>> held(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        held[r] = {{r, 1}};
    }
    detail::BucketedSum<T>& sum = sum_for(parameters, std::move(held), false, {0, ranks});
    const detail::BucketLayout& layout = sum.layout();
    // This rank's share of the global mean: n_r / B, exact when it is a power of two.
    const auto weight = static_cast<T>(static_cast<double>(mine.count) / static_cast<double>(rows));
    last_pass(loss_, parameters, std::span<const Tensor<T>>(local), weight, {}, layout, sum);
    const std::span<const T> summed = sum.finish();
    bytes_sent_ = sum.bytes_sent();
    return data::unflattened_step(parameters, summed);
}

template class DataParallel<float>;
template class DataParallel<double>;

}  // namespace topos::distributed
