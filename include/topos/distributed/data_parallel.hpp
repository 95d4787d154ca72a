// distributed::DataParallel: one training step over a global batch shared out
// among the ranks. Every rank holds the same parameters and the same Function
// (so the same compiled plans); every rank gets the same loss and gradients,
// so every rank's optimizer takes the same step. Two ways to share the batch:
//
// - by rank (the default): rank r computes its rows shard(rows) at once, and
//   the gradients, each weighted by the rank's share of the rows, are summed
//   over the ranks in rank order, in one buffer with the loss. The global mean
//   loss is then sum_r (n_r / B) mean_r where one process computes (sum of B
//   row losses) / B: the bits depend on the number of ranks (a few units in
//   the last place per step).
//
// - by micro-batch ({.micro_batches = M}): the batch is cut into M
//   micro-batches whatever the number of ranks (data::MicroBatches), rank r
//   computes the contiguous micro-batches held_by(r, ranks) one at a time,
//   and the weighted results are summed in the micro-batches' fixed tree
//   (Communicator::sum_in_tree). Then 1, 2, 3 or any number of ranks, and one
//   process without MPI (data::value_and_gradients_in_micro_batches), give the
//   same bits, so a run resumed on fewer ranks is the same run. The cost: a
//   rank holding k micro-batches runs k smaller passes instead of one, and
//   sends k' node values (the tree's nodes covering its micro-batches) where
//   the rank-order sum sends one.
#pragma once

#include <topos/data/batches.hpp>
#include <topos/distributed/communicator.hpp>
#include <topos/model/function.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

namespace topos::distributed {

// How a DataParallel shares a global batch among the ranks.
struct DataParallelOptions {
    // 0: by rank; M > 0: in M micro-batches, the same bits on any number of ranks.
    std::size_t micro_batches = 0;
};

template <ComputeElement T>
class DataParallel {
public:
    // `loss` must give a rank-0 value; every argument's first axis is the batch.
    DataParallel(Communicator world, Function<T> loss, DataParallelOptions options = {})
        : world_(world), loss_(std::move(loss)), options_(options) {}

    // This rank's rows of a global batch of `rows`: contiguous, the first
    // rows % size ranks one row longer.
    data::BatchRange shard(std::size_t rows) const;

    // The global loss and gradients of `inputs` (the global batch), the same on
    // every rank. Every rank must pass the same global batch shapes and
    // parameter shapes: checked first, in one collective, so that ranks that
    // disagree (one with 59 rows, the others with 60) all throw
    // CommunicationError naming what each holds. Throws Error when the global
    // batch has fewer rows than ranks (by rank) or than micro-batches.
    ValueAndGradients<T> value_and_gradients(const Parameters<T>& parameters,
                                             std::span<const Tensor<T>> inputs) const;

    // The same, the inputs one argument each.
    template <class... Inputs>
    requires(std::convertible_to<const Inputs&, const Tensor<T>&>&&...)
        ValueAndGradients<T> value_and_gradients(const Parameters<T>& parameters,
                                                 const Inputs&... inputs)
    const {
        const std::array<Tensor<T>, sizeof...(Inputs)> all{Tensor<T>(inputs)...};
        return value_and_gradients(parameters, std::span<const Tensor<T>>(all));
    }

    // How the batch is shared.
    const DataParallelOptions& options() const { return options_; }

    // Bytes this rank sent in the last step's all-reduce.
    std::uint64_t bytes_per_step() const { return world_.last_bytes_sent(); }

    // The ranks this step is shared among.
    const Communicator& world() const { return world_; }

private:
    ValueAndGradients<T> by_rank(const Parameters<T>& parameters,
                                 std::span<const Tensor<T>> inputs) const;
    ValueAndGradients<T> by_micro_batch(const Parameters<T>& parameters,
                                        std::span<const Tensor<T>> inputs) const;

    Communicator world_;
    Function<T> loss_;
    DataParallelOptions options_;
};

extern template class DataParallel<float>;
extern template class DataParallel<double>;

}  // namespace topos::distributed
