// Loader<T> and Epoch<T>: each epoch's order (shuffled with a seed derived from
// the loader's seed and the epoch number, else in order), split into batch
// ranges, and the batches gathered one at a time; with prefetching on, the
// next batch is gathered by std::async while the caller uses the current one.
#include "core/thread_pool.hpp"
#include <topos/core/error.hpp>
#include <topos/data/generator.hpp>
#include <topos/data/loader.hpp>
#include <topos/model/init.hpp>

#include <numeric>

namespace topos::data {

template <Element T>
Loader<T>::Loader(Dataset<T> dataset, LoaderOptions options)
    : dataset_(std::make_shared<const Dataset<T>>(std::move(dataset))),
      options_(options),
      ranges_(batches(dataset_->size(), options.batch_size, {.drop_last = options.drop_last})) {}

template <Element T>
std::vector<std::size_t> Loader<T>::order(std::size_t epoch) const {
    if (options_.shuffle) {
        return shuffled(dataset_->size(), init::counter_bits(options_.seed, epoch));
    }
    std::vector<std::size_t> identity(dataset_->size());
    std::iota(identity.begin(), identity.end(), std::size_t{0});
    return identity;
}

template <Element T>
Epoch<T> Loader<T>::epoch(std::size_t epoch) const {
    return Epoch<T>(dataset_, epoch, order(epoch), ranges_, options_.prefetch);
}

template <Element T>
Epoch<T>::Epoch(std::shared_ptr<const Dataset<T>> dataset,
                std::size_t epoch,
                std::vector<std::size_t> order,
                std::vector<BatchRange> ranges,
                bool prefetch)
    : dataset_(std::move(dataset)),
      epoch_(epoch),
      order_(std::move(order)),
      ranges_(std::move(ranges)),
      prefetch_(prefetch) {
    prepare(0);
}

template <Element T>
std::vector<std::size_t> Epoch<T>::positions_of(std::size_t index) const {
    const BatchRange range = ranges_[index];
    const auto first = order_.begin() + static_cast<std::ptrdiff_t>(range.start);
    return {first, first + static_cast<std::ptrdiff_t>(range.count)};
}

template <Element T>
Batch<T> Epoch<T>::gather(const Dataset<T>& dataset,
                          std::size_t epoch,
                          std::size_t index,
                          std::vector<std::size_t> positions) {
    std::vector<Tensor<T>> tensors = dataset.rows(positions);
    return {.epoch = epoch,
            .index = index,
            .positions = std::move(positions),
            .tensors = std::move(tensors)};
}

// Starts gathering batch `index` (when there is one and prefetching is on). The
// task owns what it reads, so an Epoch may move while it runs.
template <Element T>
void Epoch<T>::prepare(std::size_t index) {
    if (prefetch_ && index < ranges_.size()) {
        // Where the build has no threads, the batch is gathered when it is taken.
        prepared_ = std::async(
            detail::threads_available ? std::launch::async : std::launch::deferred,
            [dataset = dataset_, epoch = epoch_, index, positions = positions_of(index)] {
                return gather(*dataset, epoch, index, positions);
            });
    }
}

template <Element T>
std::optional<Batch<T>> Epoch<T>::next() {
    if (next_ >= ranges_.size()) {
        return std::nullopt;
    }
    const std::size_t index = next_++;
    Batch<T> batch =
        prefetch_ ? prepared_.get() : gather(*dataset_, epoch_, index, positions_of(index));
    prepare(index + 1);
    return batch;
}

template class Loader<float>;
template class Loader<double>;
template class Epoch<float>;
template class Epoch<double>;

}  // namespace topos::data
