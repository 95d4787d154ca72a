// Loader<T> and Epoch<T>: each epoch's order (shuffled with a seed derived from
// the loader's seed and the epoch number, else in order), split into batch
// ranges, and the batches gathered one at a time; with prefetching on, the
// loader's one worker gathers up to prefetch_depth batches ahead onto the
// epoch's shelf, asked for half a depth at a time, and the caller takes them
// from the shelf in order.
#include "core/thread_pool.hpp"
#include "data/batch_worker.hpp"
#include <topos/core/error.hpp>
#include <topos/data/generator.hpp>
#include <topos/data/loader.hpp>
#include <topos/model/init.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <utility>

namespace topos::data {

namespace detail {

// The batches the worker has gathered for one epoch and the caller has not
// taken yet, in order; how many batches someone has begun to gather; or why
// gathering failed.
template <ComputeElement T>
struct BatchShelf {
    std::mutex mutex;
    std::condition_variable filled;
    std::deque<Batch<T>> batches;
    std::size_t claimed = 0;  // batches 0 .. claimed - 1 are being or have been gathered
    std::exception_ptr failure;
    bool taker_waiting = false;
    std::atomic<bool> abandoned = false;  // the epoch is gone: gather no more
};

}  // namespace detail

template <ComputeElement T>
Loader<T>::Loader(Dataset<T> dataset, LoaderOptions options)
    : dataset_(std::make_shared<const Dataset<T>>(std::move(dataset))),
      options_(options),
      ranges_(batches(dataset_->size(), options.batch_size, {.drop_last = options.drop_last})) {
    if (options.prefetch && options.prefetch_depth == 0) {
        throw Error(
            "a Loader that prefetches gathers at least one batch ahead: prefetch_depth is 0");
    }
    // Where the build has no threads, each batch is gathered when it is taken.
    if (options.prefetch && topos::detail::threads_available) {
        prefetcher_ = std::make_shared<detail::Prefetcher>();
    }
}

template <ComputeElement T>
std::vector<std::size_t> Loader<T>::order(std::size_t epoch) const {
    if (options_.shuffle) {
        return shuffled(dataset_->size(), init::counter_bits(options_.seed, epoch));
    }
    std::vector<std::size_t> identity(dataset_->size());
    std::iota(identity.begin(), identity.end(), std::size_t{0});
    return identity;
}

template <ComputeElement T>
Epoch<T> Loader<T>::epoch(std::size_t epoch) const {
    return Epoch<T>(dataset_, epoch, order(epoch), ranges_, prefetcher_, options_);
}

template <ComputeElement T>
Epoch<T>::Epoch(std::shared_ptr<const Dataset<T>> dataset,
                std::size_t epoch,
                std::vector<std::size_t> order,
                std::vector<BatchRange> ranges,
                std::shared_ptr<detail::Prefetcher> prefetcher,
                const LoaderOptions& options)
    : dataset_(std::move(dataset)),
      epoch_(epoch),
      order_(std::move(order)),
      ranges_(std::move(ranges)),
      prefetcher_(std::move(prefetcher)),
      depth_(options.prefetch_depth),
      inline_below_(options.gather_inline_below) {
    if (prefetcher_) {
        shelf_ = std::make_shared<detail::BatchShelf<T>>();
        request_ahead();
    }
}

template <ComputeElement T>
Epoch<T>::~Epoch() {
    if (shelf_) {
        shelf_->abandoned = true;
    }
}

template <ComputeElement T>
std::vector<std::size_t> Epoch<T>::positions_of(std::size_t index) const {
    const BatchRange range = ranges_[index];
    const auto first = order_.begin() + static_cast<std::ptrdiff_t>(range.start);
    return {first, first + static_cast<std::ptrdiff_t>(range.count)};
}

template <ComputeElement T>
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

template <ComputeElement T>
Batch<T> Epoch<T>::timed_gather(detail::Prefetcher& prefetcher,
                                const Dataset<T>& dataset,
                                std::size_t epoch,
                                std::size_t index,
                                std::vector<std::size_t> positions) {
    const auto started = std::chrono::steady_clock::now();
    Batch<T> batch = gather(dataset, epoch, index, std::move(positions));
    prefetcher.observe(std::chrono::steady_clock::now() - started);
    return batch;
}

// Once no more than half a depth of batches is on its way, asks the worker for
// the batches up to a depth ahead, in one job, so the worker is woken at most
// once every half depth; unless batches gather too fast to be worth a thread.
// The worker skips a batch the caller has claimed meanwhile. The job owns what
// it reads, so an Epoch may move, or end, while it runs.
template <ComputeElement T>
void Epoch<T>::request_ahead() {
    if (!prefetcher_ || requested_ == ranges_.size() || requested_ - next_ > depth_ / 2) {
        return;
    }
    // Until one batch has been gathered (where it is taken), its cost is unknown.
    const std::chrono::nanoseconds typical = prefetcher_->typical();
    if (typical.count() < 0 || typical < inline_below_) {
        return;
    }
    const std::size_t end = std::min(ranges_.size(), next_ + depth_);
    std::vector<std::pair<std::size_t, std::vector<std::size_t>>> wanted;
    for (std::size_t index = std::max(requested_, next_); index < end; ++index) {
        wanted.emplace_back(index, positions_of(index));
    }
    requested_ = end;
    prefetcher_->worker.run([dataset = dataset_,
                             epoch = epoch_,
                             shelf = shelf_,
                             prefetcher = prefetcher_.get(),
                             wanted]() {
        for (const auto& [index, positions] : wanted) {
            {
                const std::lock_guard lock(shelf->mutex);
                if (shelf->abandoned || shelf->failure || shelf->claimed > index) {
                    continue;
                }
                shelf->claimed = index + 1;
            }
            std::exception_ptr failure;
            std::optional<Batch<T>> batch;
            try {
                batch = timed_gather(*prefetcher, *dataset, epoch, index, positions);
            } catch (...) {
                failure = std::current_exception();
            }
            bool wake = false;
            {
                const std::lock_guard lock(shelf->mutex);
                if (batch) {
                    shelf->batches.push_back(std::move(*batch));
                } else {
                    shelf->failure = failure;
                }
                wake = shelf->taker_waiting;
            }
            if (wake) {
                shelf->filled.notify_one();
            }
        }
    });
}

// Batch next_: from the shelf; or gathered here, when the worker has not begun
// it (a caller never waits for the worker to wake); or, while the worker is
// gathering it, once it is done. Rethrows what stopped the worker.
template <ComputeElement T>
Batch<T> Epoch<T>::take_prepared() {
    std::unique_lock lock(shelf_->mutex);
    if (shelf_->batches.empty() && !shelf_->failure && shelf_->claimed <= next_) {
        shelf_->claimed = next_ + 1;
        lock.unlock();
        return timed_gather(*prefetcher_, *dataset_, epoch_, next_, positions_of(next_));
    }
    while (shelf_->batches.empty() && !shelf_->failure) {
        shelf_->taker_waiting = true;
        shelf_->filled.wait(lock);
        shelf_->taker_waiting = false;
    }
    if (shelf_->batches.empty()) {
        std::rethrow_exception(shelf_->failure);
    }
    Batch<T> batch = std::move(shelf_->batches.front());
    shelf_->batches.pop_front();
    return batch;
}

template <ComputeElement T>
std::optional<Batch<T>> Epoch<T>::next() {
    if (next_ >= ranges_.size()) {
        return std::nullopt;
    }
    Batch<T> batch =
        prefetcher_ ? take_prepared() : gather(*dataset_, epoch_, next_, positions_of(next_));
    ++next_;
    request_ahead();
    return batch;
}

template class Loader<float>;
template class Loader<double>;
template class Epoch<float>;
template class Epoch<double>;

}  // namespace topos::data
