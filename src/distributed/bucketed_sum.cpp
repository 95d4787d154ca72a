// BucketedSum: the buckets' layout, their two phases as non-blocking
// point-to-point messages (each rank's chunk of every piece out, the summed
// chunks back), the chunk sums in rank order or in the micro-batch tree, and
// the simulated link's clocks.
#include "distributed/bucketed_sum.hpp"

#include "distributed/environment.hpp"
#include <topos/core/error.hpp>
#include <topos/data/micro_batches.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <thread>
#include <utility>

namespace topos::distributed::detail {
namespace {

template <ComputeElement T>
MPI_Datatype datatype_of() {
    return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

std::int64_t now_nanoseconds() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The largest tag this MPI allows (at least 32767 by the standard).
int tag_upper_bound(MPI_Comm communicator) {
    int* value = nullptr;
    int found = 0;
    check(MPI_Comm_get_attr(communicator, MPI_TAG_UB, static_cast<void*>(&value), &found),
          "MPI_Comm_get_attr");
    return found != 0 && value != nullptr ? *value : 32767;
}

}  // namespace

BucketLayout BucketLayout::of(std::span<const std::size_t> part_elements,
                              std::size_t element_bytes,
                              bool overlap,
                              std::size_t bucket_bytes) {
    BucketLayout layout;
    layout.part_offsets.push_back(0);
    for (std::size_t elements : part_elements) {
        layout.part_offsets.push_back(layout.part_offsets.back() + elements);
    }
    std::vector<std::size_t> order;
    if (!overlap) {
        for (std::size_t part = 0; part < part_elements.size(); ++part) {
            order.push_back(part);
        }
        layout.buckets.push_back(std::move(order));
        return layout;
    }
    order.push_back(0);
    for (std::size_t part = part_elements.size(); part-- > 1;) {
        order.push_back(part);
    }
    std::size_t bytes = 0;
    for (std::size_t part : order) {
        if (layout.buckets.empty() || bytes >= bucket_bytes) {
            layout.buckets.emplace_back();
            bytes = 0;
        }
        layout.buckets.back().push_back(part);
        bytes += part_elements[part] * element_bytes;
    }
    return layout;
}

template <ComputeElement T>
BucketedSum<T>::BucketedSum(MPI_Comm communicator,
                            BucketLayout layout,
                            std::vector<std::vector<data::BatchRange>> held,
                            SumOrder order,
                            data::BatchRange root,
                            std::optional<SimulatedLink> link)
    : communicator_(communicator),
      layout_(std::move(layout)),
      held_(std::move(held)),
      order_(order),
      root_(root),
      link_(link) {
    check(MPI_Comm_rank(communicator_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(communicator_, &size_), "MPI_Comm_size");
    const auto ranks = static_cast<std::size_t>(size_);
    if (layout_.buckets.size() > static_cast<std::size_t>(tag_upper_bound(communicator_) / 4)) {
        throw Error("a step's gradients in " + std::to_string(layout_.buckets.size()) +
                    " buckets: more than this MPI's message tags can number; raise "
                    "DataParallelOptions::bucket_bytes");
    }
    pieces_.assign(held_[static_cast<std::size_t>(rank_)].size(),
                   std::vector<T>(layout_.elements()));
    result_.resize(layout_.elements());
    bucket_of_part_.resize(layout_.parts());
    buckets_.resize(layout_.buckets.size());
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
        for (std::size_t part : layout_.buckets[b]) {
            bucket_of_part_[part] = b;
        }
        Bucket& bucket = buckets_[b];
        bucket.unready = layout_.buckets[b].size();
        for (std::size_t r = 0; r <= ranks; ++r) {
            bucket.starts.push_back(bucket_elements(b) * r / ranks);
        }
        for (auto& departures : bucket.departures) {
            departures.assign(ranks, 0);
        }
        bucket.arrivals.assign(ranks, 0);
    }
}

template <ComputeElement T>
std::size_t BucketedSum<T>::bucket_elements(std::size_t b) const {
    std::size_t elements = 0;
    for (std::size_t part : layout_.buckets[b]) {
        elements += layout_.part_offsets[part + 1] - layout_.part_offsets[part];
    }
    return elements;
}

template <ComputeElement T>
void BucketedSum<T>::append_range(std::size_t b,
                                  std::span<const T> flat,
                                  std::size_t from,
                                  std::size_t to,
                                  std::vector<T>& out) const {
    std::size_t position = 0;  // of the part's first element in the bucket
    for (std::size_t part : layout_.buckets[b]) {
        const std::size_t offset = layout_.part_offsets[part];
        const std::size_t elements = layout_.part_offsets[part + 1] - offset;
        const std::size_t first = std::max(from, position);
        const std::size_t last = std::min(to, position + elements);
        if (first < last) {
            const auto begin =
                flat.begin() + static_cast<std::ptrdiff_t>(offset + first - position);
            out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>(last - first));
        }
        position += elements;
    }
}

template <ComputeElement T>
void BucketedSum<T>::ready(std::size_t part) {
    Bucket& bucket = buckets_[bucket_of_part_.at(part)];
    if (bucket.unready == 0) {
        throw Error("part " + std::to_string(part) + " of a step's gradients was reported twice");
    }
    --bucket.unready;
}

template <ComputeElement T>
void BucketedSum<T>::post(std::size_t b,
                          int phase,
                          const std::vector<std::span<const T>>& messages,
                          const std::vector<std::span<T>>& into) {
    Bucket& bucket = buckets_[b];
    const int tag = 4 * static_cast<int>(b) + 2 * phase;
    for (int r = 0; r < size_; ++r) {
        if (r == rank_) {
            continue;
        }
        const std::span<const T> message = messages[static_cast<std::size_t>(r)];
        MPI_Request request = MPI_REQUEST_NULL;
        check(MPI_Isend(message.data(),
                        static_cast<int>(message.size()),
                        datatype_of<T>(),
                        r,
                        tag,
                        communicator_,
                        &request),
              "MPI_Isend");
        bucket.sends.push_back(request);
        bytes_sent_ += message.size() * sizeof(T);
        if (link_) {
            // The link sends one message at a time: this one lands once the
            // link has spent a message's and its bytes' time on it.
            const auto busy =
                link_->seconds_per_message +
                static_cast<double>(message.size() * sizeof(T)) * link_->seconds_per_byte;
            link_free_ =
                std::max(link_free_, now_nanoseconds()) + static_cast<std::int64_t>(busy * 1e9);
            std::int64_t& departure = bucket.departures[phase][static_cast<std::size_t>(r)];
            departure = link_free_;
            check(MPI_Isend(&departure, 1, MPI_INT64_T, r, tag + 1, communicator_, &request),
                  "MPI_Isend");
            bucket.sends.push_back(request);
        }
    }
    for (int r = 0; r < size_; ++r) {
        if (r == rank_) {
            continue;
        }
        const std::span<T> buffer = into[static_cast<std::size_t>(r)];
        MPI_Request request = MPI_REQUEST_NULL;
        check(MPI_Irecv(buffer.data(),
                        static_cast<int>(buffer.size()),
                        datatype_of<T>(),
                        r,
                        tag,
                        communicator_,
                        &request),
              "MPI_Irecv");
        bucket.receives.push_back(request);
        if (link_) {
            check(MPI_Irecv(&bucket.arrivals[static_cast<std::size_t>(r)],
                            1,
                            MPI_INT64_T,
                            r,
                            tag + 1,
                            communicator_,
                            &request),
                  "MPI_Irecv");
            bucket.receives.push_back(request);
        }
    }
}

template <ComputeElement T>
void BucketedSum<T>::start_scatter(std::size_t b) {
    Bucket& bucket = buckets_[b];
    const auto ranks = static_cast<std::size_t>(size_);
    const auto me = static_cast<std::size_t>(rank_);
    const std::size_t mine = bucket.starts[me + 1] - bucket.starts[me];
    bucket.outgoing.resize(ranks);
    bucket.incoming.resize(ranks);
    std::vector<std::span<const T>> messages(ranks);
    std::vector<std::span<T>> into(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        bucket.outgoing[r].clear();
        for (const std::vector<T>& piece : pieces_) {
            append_range(b, piece, bucket.starts[r], bucket.starts[r + 1], bucket.outgoing[r]);
        }
        bucket.incoming[r].resize(held_[r].size() * mine);
        messages[r] = bucket.outgoing[r];
        into[r] = bucket.incoming[r];
    }
    post(b, 0, messages, into);
    bucket.stage = Stage::Scattering;
}

template <ComputeElement T>
std::vector<T> BucketedSum<T>::summed_chunk(std::size_t b) const {
    const Bucket& bucket = buckets_[b];
    const auto me = static_cast<std::size_t>(rank_);
    const std::size_t mine = bucket.starts[me + 1] - bucket.starts[me];
    // Rank r's pieces' chunks of mine: what it sent, or my own outgoing share.
    const auto chunks_of = [&](std::size_t r) -> std::span<const T> {
        return r == me ? bucket.outgoing[me] : bucket.incoming[r];
    };
    if (order_ == SumOrder::Ranks) {
        std::vector<T> sum(chunks_of(0).begin(), chunks_of(0).end());
        for (std::size_t r = 1; r < held_.size(); ++r) {
            const std::span<const T> copy = chunks_of(r);
            for (std::size_t i = 0; i < mine; ++i) {
                sum[i] += copy[i];
            }
        }
        return sum;
    }
    std::map<std::pair<std::size_t, std::size_t>, std::span<const T>> known;
    for (std::size_t r = 0; r < held_.size(); ++r) {
        for (std::size_t k = 0; k < held_[r].size(); ++k) {
            known.emplace(std::pair{held_[r][k].start, held_[r][k].count},
                          chunks_of(r).subspan(k * mine, mine));
        }
    }
    return data::tree_value(root_, known);
}

template <ComputeElement T>
void BucketedSum<T>::start_gather(std::size_t b) {
    Bucket& bucket = buckets_[b];
    const auto ranks = static_cast<std::size_t>(size_);
    const auto me = static_cast<std::size_t>(rank_);
    bucket.gathered.resize(bucket.starts.back());
    const std::vector<T> sum = summed_chunk(b);
    std::copy(sum.begin(),
              sum.end(),
              bucket.gathered.begin() + static_cast<std::ptrdiff_t>(bucket.starts[me]));
    const std::span<T> gathered(bucket.gathered);
    const std::span<const T> mine =
        gathered.subspan(bucket.starts[me], bucket.starts[me + 1] - bucket.starts[me]);
    std::vector<std::span<const T>> messages(ranks, mine);
    std::vector<std::span<T>> into(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        into[r] = gathered.subspan(bucket.starts[r], bucket.starts[r + 1] - bucket.starts[r]);
    }
    post(b, 1, messages, into);
    bucket.stage = Stage::Gathering;
}

template <ComputeElement T>
bool BucketedSum<T>::landed(Bucket& bucket) const {
    int done = 0;
    check(MPI_Testall(static_cast<int>(bucket.receives.size()),
                      bucket.receives.data(),
                      &done,
                      MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (done == 0) {
        return false;
    }
    if (link_) {
        const std::int64_t last = *std::max_element(bucket.arrivals.begin(), bucket.arrivals.end());
        if (now_nanoseconds() < last) {
            return false;
        }
    }
    bucket.receives.clear();
    return true;
}

template <ComputeElement T>
void BucketedSum<T>::advance(std::size_t b) {
    Bucket& bucket = buckets_[b];
    if (bucket.stage == Stage::Scattering && landed(bucket)) {
        start_gather(b);
    }
    if (bucket.stage == Stage::Gathering && landed(bucket)) {
        std::size_t position = 0;
        for (std::size_t part : layout_.buckets[b]) {
            const std::size_t offset = layout_.part_offsets[part];
            const std::size_t elements = layout_.part_offsets[part + 1] - offset;
            std::copy_n(bucket.gathered.begin() + static_cast<std::ptrdiff_t>(position),
                        elements,
                        result_.begin() + static_cast<std::ptrdiff_t>(offset));
            position += elements;
        }
        bucket.stage = Stage::Done;
    }
}

template <ComputeElement T>
void BucketedSum<T>::progress() {
    while (launched_ < buckets_.size() && buckets_[launched_].unready == 0) {
        start_scatter(launched_++);
    }
    for (std::size_t b = first_unfinished_; b < launched_; ++b) {
        advance(b);
    }
    while (first_unfinished_ < launched_ && buckets_[first_unfinished_].stage == Stage::Done) {
        ++first_unfinished_;
    }
}

template <ComputeElement T>
std::span<const T> BucketedSum<T>::finish() {
    progress();
    if (launched_ < buckets_.size()) {
        throw Error("a step's gradients: bucket " + std::to_string(launched_) + " of " +
                    std::to_string(buckets_.size()) + " never became final");
    }
    for (Bucket& bucket : buckets_) {
        const std::size_t b = static_cast<std::size_t>(&bucket - buckets_.data());
        while (bucket.stage != Stage::Done) {
            check(MPI_Waitall(static_cast<int>(bucket.receives.size()),
                              bucket.receives.data(),
                              MPI_STATUSES_IGNORE),
                  "MPI_Waitall");
            if (link_) {
                const std::int64_t last =
                    *std::max_element(bucket.arrivals.begin(), bucket.arrivals.end());
                std::this_thread::sleep_until(std::chrono::steady_clock::time_point(
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::nanoseconds(last))));
            }
            advance(b);
        }
    }
    for (Bucket& bucket : buckets_) {
        check(MPI_Waitall(
                  static_cast<int>(bucket.sends.size()), bucket.sends.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    }
    first_unfinished_ = buckets_.size();
    return result_;
}

template <ComputeElement T>
void BucketedSum<T>::restart() {
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
        Bucket& bucket = buckets_[b];
        bucket.stage = Stage::Filling;
        bucket.unready = layout_.buckets[b].size();
        bucket.receives.clear();
        bucket.sends.clear();
    }
    launched_ = 0;
    first_unfinished_ = 0;
    link_free_ = 0;
    bytes_sent_ = 0;
}

template class BucketedSum<float>;
template class BucketedSum<double>;

}  // namespace topos::distributed::detail
