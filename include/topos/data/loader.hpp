// data::Loader: a dataset's examples in batches, epoch after epoch, in a
// seeded shuffled order (the same on every platform), as torch's DataLoader
// serves them. While the caller trains on one batch, the next ones (up to
// `prefetch_depth` of them) are gathered on one worker thread that lives as
// long as the loader and its epochs, so a step that takes longer than
// gathering a batch finds its rows ready, and taking a ready batch costs a
// lock, not a thread. Batches that gather faster than `gather_inline_below`
// (rows of a table in memory) are gathered when taken instead: waking a
// thread costs more than they do. A caller never waits for the worker to
// wake: a batch it has not begun is gathered where it is taken.
//
//   data::Loader<float> loader(data::Dataset<float>({images, labels}), {.batch_size = 50});
//   for (std::size_t epoch = 0; epoch < 10; ++epoch) {
//       for (const data::Batch<float>& batch : loader.epoch(epoch)) {
//           step(batch[0], batch[1]);
//       }
//   }
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/data/batches.hpp>
#include <topos/data/dataset.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

namespace topos::data {

// How a Loader batches and orders its dataset.
struct LoaderOptions {
    std::size_t batch_size = 1;
    bool shuffle = true;  // a fresh order each epoch; off, the dataset's own order
    std::uint64_t seed = 0;
    bool drop_last = false;          // drop the last batch when it is short
    bool prefetch = true;            // gather the next batches on a worker thread
    std::size_t prefetch_depth = 4;  // how many batches may be gathered ahead
    // Batches that take less to gather (on average) are gathered when taken.
    std::chrono::nanoseconds gather_inline_below = std::chrono::microseconds(20);
};

// One batch of an epoch: where it stands, the examples it holds and their rows.
template <ComputeElement T>
struct Batch {
    std::size_t epoch = 0;
    std::size_t index = 0;               // within the epoch
    std::vector<std::size_t> positions;  // the examples, as rows of the dataset
    std::vector<Tensor<T>> tensors;      // one per tensor of the dataset

    // The rows of the dataset's tensor i; std::out_of_range past the last.
    const Tensor<T>& operator[](std::size_t i) const { return tensors.at(i); }

    // The number of examples in the batch.
    std::size_t size() const { return positions.size(); }
};

template <ComputeElement T>
class Epoch;

namespace detail {
struct Prefetcher;
template <ComputeElement T>
struct BatchShelf;
}  // namespace detail

template <ComputeElement T>
class Loader {
public:
    // Throws Error for a batch size of 0, or a prefetch depth of 0 with
    // prefetching on.
    Loader(Dataset<T> dataset, LoaderOptions options);

    // The batches of one epoch, the last short unless drop_last.
    std::size_t batches_per_epoch() const { return ranges_.size(); }

    // The order of the examples in `epoch`: shuffled(size, init::counter_bits(seed,
    // epoch)) when shuffling, else 0, 1, ...
    std::vector<std::size_t> order(std::size_t epoch) const;

    // One pass over the dataset: a range of Batch<T> (move-only, single pass).
    Epoch<T> epoch(std::size_t epoch) const;

    // The dataset it serves.
    const Dataset<T>& dataset() const { return *dataset_; }

    // The options it was made with.
    const LoaderOptions& options() const { return options_; }

private:
    std::shared_ptr<const Dataset<T>> dataset_;
    LoaderOptions options_;
    std::vector<BatchRange> ranges_;
    std::shared_ptr<detail::Prefetcher> prefetcher_;  // null without prefetching
};

// One pass of a Loader over its dataset, batch by batch (what Loader::epoch returns).
template <ComputeElement T>
class Epoch {
public:
    Epoch(Epoch&&) noexcept = default;
    Epoch& operator=(Epoch&&) noexcept = default;
    Epoch(const Epoch&) = delete;
    Epoch& operator=(const Epoch&) = delete;

    // Batches still being gathered for it are dropped.
    ~Epoch();

    // The next batch, or nothing after the last.
    std::optional<Batch<T>> next();

    // What a range-for walks: each step takes the next batch.
    class Iterator {
    public:
        using value_type = Batch<T>;
        using difference_type = std::ptrdiff_t;

        const Batch<T>& operator*() const { return *current_; }

        const Batch<T>* operator->() const { return &*current_; }

        Iterator& operator++() {
            current_ = epoch_->next();
            return *this;
        }

        void operator++(int) { ++*this; }

        friend bool operator==(const Iterator& it, std::default_sentinel_t /*end*/) {
            return !it.current_;
        }

    private:
        friend class Epoch;

        explicit Iterator(Epoch* epoch) : epoch_(epoch), current_(epoch->next()) {}

        Epoch* epoch_;
        std::optional<Batch<T>> current_;
    };

    // Starts the single pass: its iterator holds the first batch.
    Iterator begin() { return Iterator(this); }

    // Past the last batch.
    std::default_sentinel_t end() const { return {}; }

private:
    friend class Loader<T>;

    Epoch(std::shared_ptr<const Dataset<T>> dataset,
          std::size_t epoch,
          std::vector<std::size_t> order,
          std::vector<BatchRange> ranges,
          std::shared_ptr<detail::Prefetcher> prefetcher,
          const LoaderOptions& options);

    static Batch<T> gather(const Dataset<T>& dataset,
                           std::size_t epoch,
                           std::size_t index,
                           std::vector<std::size_t> positions);
    static Batch<T> timed_gather(detail::Prefetcher& prefetcher,
                                 const Dataset<T>& dataset,
                                 std::size_t epoch,
                                 std::size_t index,
                                 std::vector<std::size_t> positions);
    std::vector<std::size_t> positions_of(std::size_t index) const;
    void request_ahead();
    Batch<T> take_prepared();

    std::shared_ptr<const Dataset<T>> dataset_;
    std::size_t epoch_;
    std::vector<std::size_t> order_;
    std::vector<BatchRange> ranges_;
    std::shared_ptr<detail::Prefetcher> prefetcher_;  // null: each batch gathered when taken
    std::shared_ptr<detail::BatchShelf<T>> shelf_;
    std::size_t depth_;
    std::chrono::nanoseconds inline_below_;
    std::size_t next_ = 0;
    std::size_t requested_ = 0;
};

extern template class Loader<float>;
extern template class Loader<double>;
extern template class Epoch<float>;
extern template class Epoch<double>;

}  // namespace topos::data
