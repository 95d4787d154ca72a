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
//   (see data::MicroBatches). Then 1, 2, 3 or any number of ranks, and one
//   process without MPI (data::value_and_gradients_in_micro_batches), give the
//   same bits, so a run resumed on fewer ranks is the same run. The cost: a
//   rank holding k micro-batches runs k smaller passes instead of one, and
//   sends k' node values (the tree's nodes covering its micro-batches) where
//   the rank-order sum sends one.
//
// Either way the loss and gradients are summed in buckets of about
// `bucket_bytes`, each sent as soon as the backward pass has made every
// gradient in it final (the plan reports each one after the step that
// computes it), while the plan computes the rest; the last parameters'
// gradients, which a backward pass finishes first, go first. An element's sum
// does not depend on its bucket, so the bits are those without overlap, which
// sends one buffer after the backward pass. The messages move on between the
// plan's steps, on the calling thread: no thread of its own.
#pragma once

#include <topos/data/batches.hpp>
#include <topos/data/micro_batches.hpp>
#include <topos/distributed/communicator.hpp>
#include <topos/model/function.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace topos::distributed {

namespace detail {
template <ComputeElement T>
class BucketedSum;
}  // namespace detail

// A network between ranks simulated on one machine, whose ranks read one
// clock: to measure what hiding communication behind computation gains
// where machines are apart. Each rank's link sends one message at a time: a
// message of b bytes lands seconds_per_message + b * seconds_per_byte after
// the link is done with the messages sent before it, and is not received
// before. 10 Gbit/s Ethernet with 30 µs a message is {30e-6, 8e-10}.
struct SimulatedLink {
    double seconds_per_message = 0;
    double seconds_per_byte = 0;
};

// How a DataParallel shares a global batch among the ranks and sums it.
struct DataParallelOptions {
    // 0: by rank; M > 0: in M micro-batches, the same bits on any number of ranks.
    std::size_t micro_batches = 0;
    // Sum the gradients in buckets as the backward pass finishes them, while
    // it computes the rest; false: one sum of everything after it.
    bool overlap = true;
    // A bucket closes once it holds this many bytes or more (one gradient at
    // least). Smaller buckets go out sooner, each costing a message more.
    std::size_t bucket_bytes = std::size_t{1} << 20;
    // Delays every message as a network would (for measurements; none by default).
    std::optional<SimulatedLink> simulated_link = std::nullopt;
};

template <ComputeElement T>
class DataParallel {
public:
    // `loss` must give a rank-0 value; every argument's first axis is the
    // batch. Every rank of `world` makes it (it duplicates the communicator,
    // so that its messages meet no others).
    DataParallel(Communicator world, Function<T> loss, DataParallelOptions options = {});

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

    // Bytes of loss and gradients this rank sent in the last step.
    std::uint64_t bytes_per_step() const { return bytes_sent_; }

    // The bytes of each bucket of the last step, in the order they went out
    // (the loss and the last parameters' gradients first); empty before the
    // first step. To see what bucket_bytes makes of a model.
    std::vector<std::size_t> bucket_sizes() const;

    // The ranks this step is shared among.
    const Communicator& world() const { return world_; }

private:
    ValueAndGradients<T> by_rank(const Parameters<T>& parameters,
                                 std::span<const Tensor<T>> inputs) const;
    ValueAndGradients<T> by_micro_batch(const Parameters<T>& parameters,
                                        std::span<const Tensor<T>> inputs) const;

    Communicator world_;
    std::shared_ptr<const MPI_Comm> channel_;  // world_'s duplicate, for the sums' messages
    Function<T> loss_;
    DataParallelOptions options_;
    mutable std::uint64_t bytes_sent_ = 0;
    // The sum's buckets and buffers, kept from step to step.
    mutable std::shared_ptr<detail::BucketedSum<T>> sum_;

    detail::BucketedSum<T>& sum_for(const Parameters<T>& parameters,
                                    std::vector<std::vector<data::BatchRange>> held,
                                    bool tree,
                                    data::BatchRange root) const;
};

extern template class DataParallel<float>;
extern template class DataParallel<double>;

}  // namespace topos::distributed
