// distributed::DataParallel: one training step over a global batch shared out
// among the ranks. Every rank holds the same parameters and the same Function
// (so the same compiled plan per shard shape); rank r feeds its rows
// shard(rows) of every input, and the gradients, each weighted by the rank's
// share of the rows, are summed over the ranks in rank order, in one buffer
// with the loss. Every rank gets the same loss and gradients, so every rank's
// optimizer takes the same step.
//
// With N ranks the global mean loss is sum_r (n_r / B) mean_r, where one
// process computes (sum of B row losses) / B: the two differ only in the order
// of the additions (and, where n_r / B is not a power of two, one rounding of
// each weight), a few units in the last place per step.
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

template <ComputeElement T>
class DataParallel {
public:
    // `loss` must give a rank-0 value; every argument's first axis is the batch.
    DataParallel(Communicator world, Function<T> loss) : world_(world), loss_(std::move(loss)) {}

    // This rank's rows of a global batch of `rows`: contiguous, the first
    // rows % size ranks one row longer.
    data::BatchRange shard(std::size_t rows) const;

    // The global loss and gradients of `inputs` (the global batch), the same on
    // every rank. Every rank must pass the same global batch shapes and
    // parameter shapes: checked first, in one collective, so that ranks that
    // disagree (one with 59 rows, the others with 60) all throw
    // CommunicationError naming what each holds. Throws Error when the global
    // batch has fewer rows than ranks.
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

    // Bytes this rank sent in the last step's all-reduce.
    std::uint64_t bytes_per_step() const { return world_.last_bytes_sent(); }

    // The ranks this step is shared among.
    const Communicator& world() const { return world_; }

private:
    Communicator world_;
    Function<T> loss_;
};

extern template class DataParallel<float>;
extern template class DataParallel<double>;

}  // namespace topos::distributed
