// distributed::Communicator over MPI: all_reduce as a reduce-scatter by
// MPI_Alltoallv (each rank summing its chunk in rank order) and an
// MPI_Allgatherv, broadcast of parameters and optimizer state, and a check
// before each all_reduce and broadcast of parameters that every rank passes
// the same element count or parameter layout, so a mismatch throws on every
// rank instead of hanging.
#include "distributed/environment.hpp"
#include <topos/distributed/communicator.hpp>

#include <climits>
#include <string>

namespace topos::distributed {
namespace {

template <Element T>
MPI_Datatype datatype_of() {
    return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

template <Element T>
std::vector<T> flattened(const Parameters<T>& values) {
    std::vector<T> buffer;
    for (const Tensor<T>& value : values.values()) {
        buffer.insert(buffer.end(), value.data().begin(), value.data().end());
    }
    return buffer;
}

template <Element T>
Parameters<T> unflattened(const Parameters<T>& like, const std::vector<T>& buffer) {
    std::vector<Tensor<T>> values;
    std::size_t offset = 0;
    for (const Tensor<T>& value : like.values()) {
        values.emplace_back(value.shape(),
                            std::span<const T>(buffer).subspan(offset, value.elements()));
        offset += value.elements();
    }
    return like.with_values(std::move(values));
}

// A 64-bit digest of the slots' shapes (FNV-1a), so that ranks can tell
// whether they hold parameters of one layout.
template <Element T>
std::uint64_t layout_digest(const Parameters<T>& values) {
    std::uint64_t digest = 14695981039346656037ull;
    const auto mix = [&](std::uint64_t word) { digest = (digest ^ word) * 1099511628211ull; };
    for (const Tensor<T>& value : values.values()) {
        mix(value.shape().rank());
        for (const std::size_t extent : value.shape().extents()) {
            mix(extent);
        }
    }
    return digest;
}

// Every rank's `word`; throws CommunicationError on every rank, naming
// `what` and each rank's word, unless all are equal.
void agree(MPI_Comm communicator, int size, std::uint64_t word, const std::string& what) {
    std::vector<std::uint64_t> words(static_cast<std::size_t>(size));
    detail::check(
        MPI_Allgather(&word, 1, MPI_UINT64_T, words.data(), 1, MPI_UINT64_T, communicator),
        "MPI_Allgather");
    for (const std::uint64_t other : words) {
        if (other != words.front()) {
            std::string message = "the ranks disagree on " + what + ":";
            for (std::size_t r = 0; r < words.size(); ++r) {
                message += " rank " + std::to_string(r) + " has " + std::to_string(words[r]) +
                           (r + 1 < words.size() ? "," : "");
            }
            throw CommunicationError(message);
        }
    }
}

void check_root(int root, int size) {
    if (root < 0 || root >= size) {
        throw CommunicationError("a broadcast from rank " + std::to_string(root) +
                                 " in a group of ranks 0 to " + std::to_string(size - 1));
    }
}

}  // namespace

Communicator::Communicator() : Communicator(MPI_COMM_WORLD) {}

Communicator::Communicator(MPI_Comm communicator) : communicator_(communicator) {
    detail::ensure_mpi();
    detail::check(MPI_Comm_set_errhandler(communicator_, MPI_ERRORS_RETURN),
                  "MPI_Comm_set_errhandler");
    detail::check(MPI_Comm_rank(communicator_, &rank_), "MPI_Comm_rank");
    detail::check(MPI_Comm_size(communicator_, &size_), "MPI_Comm_size");
}

void Communicator::barrier() const {
    detail::check(MPI_Barrier(communicator_), "MPI_Barrier");
}

template <Element T>
std::vector<T> Communicator::all_reduce(std::span<const T> values) const {
    agree(communicator_, size_, values.size(), "the number of elements to sum");
    if (values.size() > static_cast<std::size_t>(INT_MAX)) {
        throw CommunicationError("all_reduce of " + std::to_string(values.size()) +
                                 " elements: MPI counts stop at 2^31 - 1");
    }
    if (size_ == 1) {
        last_bytes_sent_ = 0;
        return {values.begin(), values.end()};
    }
    const auto ranks = static_cast<std::size_t>(size_);
    const auto me = static_cast<std::size_t>(rank_);
    std::vector<int> starts(ranks + 1);
    for (std::size_t r = 0; r <= ranks; ++r) {
        starts[r] = static_cast<int>(values.size() * r / ranks);
    }
    std::vector<int> counts(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        counts[r] = starts[r + 1] - starts[r];
    }
    const int mine = counts[me];
    std::vector<int> receive_counts(ranks, mine);
    std::vector<int> receive_starts(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        receive_starts[r] = static_cast<int>(r) * mine;
    }
    std::vector<T> copies(ranks * static_cast<std::size_t>(mine));
    detail::check(MPI_Alltoallv(values.data(),
                                counts.data(),
                                starts.data(),
                                datatype_of<T>(),
                                copies.data(),
                                receive_counts.data(),
                                receive_starts.data(),
                                datatype_of<T>(),
                                communicator_),
                  "MPI_Alltoallv");
    std::vector<T> chunk(static_cast<std::size_t>(mine));
    for (std::size_t i = 0; i < chunk.size(); ++i) {
        T sum = copies[i];  // rank 0's copy, then the others in rank order
        for (std::size_t r = 1; r < ranks; ++r) {
            sum += copies[r * chunk.size() + i];
        }
        chunk[i] = sum;
    }
    std::vector<T> result(values.size());
    detail::check(MPI_Allgatherv(chunk.data(),
                                 mine,
                                 datatype_of<T>(),
                                 result.data(),
                                 counts.data(),
                                 starts.data(),
                                 datatype_of<T>(),
                                 communicator_),
                  "MPI_Allgatherv");
    last_bytes_sent_ = (values.size() - static_cast<std::size_t>(mine) +
                        static_cast<std::size_t>(mine) * (ranks - 1)) *
                       sizeof(T);
    return result;
}

template <Element T>
Parameters<T> Communicator::all_reduce(const Parameters<T>& values) const {
    agree(communicator_, size_, layout_digest(values), "the parameters' shapes (a digest of them)");
    const std::vector<T> buffer = flattened(values);
    return unflattened(values, all_reduce(std::span<const T>(buffer)));
}

template <Element T>
Tensor<T> Communicator::all_reduce(const Tensor<T>& value) const {
    return Tensor<T>(value.shape(), all_reduce(value.data()));
}

template <Element T>
Parameters<T> Communicator::broadcast(const Parameters<T>& parameters, int root) const {
    check_root(root, size_);
    agree(communicator_,
          size_,
          layout_digest(parameters),
          "the parameters' shapes (a digest of them)");
    std::vector<T> buffer = flattened(parameters);
    detail::check(
        MPI_Bcast(
            buffer.data(), static_cast<int>(buffer.size()), datatype_of<T>(), root, communicator_),
        "MPI_Bcast");
    return unflattened(parameters, buffer);
}

std::uint64_t Communicator::broadcast_count(std::uint64_t count, int root) const {
    check_root(root, size_);
    detail::check(MPI_Bcast(&count, 1, MPI_UINT64_T, root, communicator_), "MPI_Bcast");
    return count;
}

template <Element T>
optim::AdamState<T> Communicator::broadcast(const optim::AdamState<T>& state, int root) const {
    // A braced list is evaluated in order: every rank calls the collectives alike.
    return {broadcast_count(state.steps, root),
            broadcast(state.first_moment, root),
            broadcast(state.second_moment, root)};
}

template <Element T>
optim::SgdState<T> Communicator::broadcast(const optim::SgdState<T>& state, int root) const {
    return {broadcast_count(state.steps, root), broadcast(state.momentum, root)};
}

template Parameters<float> Communicator::broadcast(const Parameters<float>&, int) const;
template Parameters<double> Communicator::broadcast(const Parameters<double>&, int) const;
template optim::AdamState<float> Communicator::broadcast(const optim::AdamState<float>&, int) const;
template optim::AdamState<double> Communicator::broadcast(const optim::AdamState<double>&,
                                                          int) const;
template optim::SgdState<float> Communicator::broadcast(const optim::SgdState<float>&, int) const;
template optim::SgdState<double> Communicator::broadcast(const optim::SgdState<double>&, int) const;
template Parameters<float> Communicator::all_reduce(const Parameters<float>&) const;
template Parameters<double> Communicator::all_reduce(const Parameters<double>&) const;
template Tensor<float> Communicator::all_reduce(const Tensor<float>&) const;
template Tensor<double> Communicator::all_reduce(const Tensor<double>&) const;
template std::vector<float> Communicator::all_reduce(std::span<const float>) const;
template std::vector<double> Communicator::all_reduce(std::span<const double>) const;

}  // namespace topos::distributed
