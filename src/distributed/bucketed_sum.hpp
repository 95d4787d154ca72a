// The sum over the ranks of a step's flat buffer (the loss, then every
// parameter's gradient in slot order), cut into buckets that each go out as
// soon as every element in it is final on this rank, while the backward pass
// computes the rest. Each bucket is summed as Communicator::all_reduce sums a
// buffer: rank r receives chunk r of the bucket from every rank and adds the
// copies (in rank order, or in the micro-batch tree), then every rank gathers
// every summed chunk. An element's sum is the same whichever bucket carries
// it, so overlapping never changes the bits.
//
// The messages are non-blocking point-to-point ones, tagged by bucket and
// phase, so they need no common order between the ranks: a rank sends a
// bucket when it is ready and moves the messages on each time progress() is
// called (after every step of the plan), with no thread of its own.
#pragma once

#include <topos/data/batches.hpp>
#include <topos/distributed/data_parallel.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mpi.h>
#include <optional>
#include <span>
#include <vector>

namespace topos::distributed::detail {

// The flat buffer's parts (part 0 the loss, part s + 1 slot s's gradient) and
// the buckets they go out in, in order.
struct BucketLayout {
    std::vector<std::size_t> part_offsets;          // by part, then the end
    std::vector<std::vector<std::size_t>> buckets;  // each one's parts

    // The loss, then the gradients from the last slot back (the order a
    // backward pass finishes them in), a bucket closing once it holds
    // `bucket_bytes` or more; one bucket of everything without `overlap`.
    static BucketLayout of(std::span<const std::size_t> part_elements,
                           std::size_t element_bytes,
                           bool overlap,
                           std::size_t bucket_bytes);

    std::size_t elements() const { return part_offsets.back(); }

    std::size_t parts() const { return part_offsets.size() - 1; }
};

// How the ranks' pieces are added, element by element.
enum class SumOrder : std::uint8_t {
    Ranks,  // one piece a rank: ((p_0 + p_1) + p_2) + ...
    Tree,   // pieces are nodes of the micro-batch tree over `root`: summed in it
};

template <ComputeElement T>
class BucketedSum {
public:
    // `held[r]`: the pieces rank r contributes, in order: the tree's nodes
    // covering its micro-batches, or {r, 1} for one piece a rank.
    BucketedSum(MPI_Comm communicator,
                BucketLayout layout,
                std::vector<std::vector<data::BatchRange>> held,
                SumOrder order,
                data::BatchRange root,
                std::optional<SimulatedLink> link);

    // This rank's piece k, layout.elements() long, for the caller to fill.
    std::span<T> piece(std::size_t k) { return pieces_[k]; }

    // The number of pieces this rank contributes.
    std::size_t pieces() const { return pieces_.size(); }

    // The layout's part `part` is final in every piece of this rank.
    void ready(std::size_t part);

    // Sends, in order, each bucket whose parts are all ready, and moves the
    // messages already out on.
    void progress();

    // Waits for every bucket and returns the sum, the whole flat buffer (valid
    // until the next restart). Throws Error when a part was never ready.
    std::span<const T> finish();

    // Makes it ready for another step over the same layout and pieces,
    // keeping every buffer: a training loop allocates nothing here after its
    // first step.
    void restart();

    // The layout it sums over.
    const BucketLayout& layout() const { return layout_; }

    // Data bytes this rank sent (the simulated link's clocks not counted).
    std::uint64_t bytes_sent() const { return bytes_sent_; }

private:
    enum class Stage : std::uint8_t {
        Filling,
        Scattering,
        Gathering,
        Done
    };

    struct Bucket {
        Stage stage = Stage::Filling;
        std::size_t unready = 0;               // parts not yet final
        std::vector<std::size_t> starts;       // chunk r: [starts[r], starts[r + 1])
        std::vector<std::vector<T>> outgoing;  // by peer: my pieces' chunks of its
        std::vector<std::vector<T>> incoming;  // by peer: its pieces' chunks of mine
        std::vector<T> gathered;               // the summed bucket
        std::vector<MPI_Request> receives;     // of the phase in flight
        std::vector<MPI_Request> sends;        // of both phases, until finish()
        // The simulated link's clocks (steady_clock nanoseconds), by phase and
        // peer: when each message sent lands, and when each received one does.
        std::vector<std::int64_t> departures[2];
        std::vector<std::int64_t> arrivals;
    };

    std::size_t bucket_elements(std::size_t b) const;
    // Appends elements [from, to) of bucket b, read from a flat buffer.
    void append_range(std::size_t b,
                      std::span<const T> flat,
                      std::size_t from,
                      std::size_t to,
                      std::vector<T>& out) const;
    void start_scatter(std::size_t b);
    void start_gather(std::size_t b);
    // Sends `messages[r]` to every other rank r and receives `counts[r]`
    // elements from it into `into[r]`, tagged by bucket and phase.
    void post(std::size_t b,
              int phase,
              const std::vector<std::span<const T>>& messages,
              const std::vector<std::span<T>>& into);
    bool landed(Bucket& bucket) const;
    void advance(std::size_t b);
    std::vector<T> summed_chunk(std::size_t b) const;

    MPI_Comm communicator_;
    int rank_ = 0;
    int size_ = 1;
    BucketLayout layout_;
    std::vector<std::vector<data::BatchRange>> held_;
    SumOrder order_;
    data::BatchRange root_;
    std::optional<SimulatedLink> link_;
    std::vector<std::vector<T>> pieces_;
    std::vector<std::size_t> bucket_of_part_;
    std::vector<Bucket> buckets_;
    std::vector<T> result_;
    std::size_t launched_ = 0;
    std::size_t first_unfinished_ = 0;
    std::int64_t link_free_ = 0;  // steady_clock nanoseconds: when the simulated link is idle
    std::uint64_t bytes_sent_ = 0;
};

extern template class BucketedSum<float>;
extern template class BucketedSum<double>;

}  // namespace topos::distributed::detail
