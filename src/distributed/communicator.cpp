// distributed::Communicator over MPI: all_reduce as a reduce-scatter by
// MPI_Alltoallv (each rank summing its chunk in rank order) and an
// MPI_Allgatherv, broadcast of parameters and optimizer state, and a check
// before each all_reduce and broadcast of parameters, in one collective, that
// every rank passes the same element count and parameter layout, so a
// mismatch throws on every rank instead of hanging.
#include "distributed/agreement.hpp"
#include "distributed/environment.hpp"
#include <topos/distributed/communicator.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <string>

namespace topos::distributed {
namespace {

template <ComputeElement T>
MPI_Datatype datatype_of() {
    return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

template <ComputeElement T>
std::vector<T> flattened(const Parameters<T>& values) {
    std::vector<T> buffer;
    for (const Tensor<T>& value : values.values()) {
        buffer.insert(buffer.end(), value.data().begin(), value.data().end());
    }
    return buffer;
}

template <ComputeElement T>
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

template <ComputeElement T>
Agreement layout_of(const Parameters<T>& values, std::string what = "the parameters' shapes") {
    return detail::shapes_of(values.values(), std::move(what));
}

Agreement root_of(int root) {
    return {"the broadcast's root",
            static_cast<std::uint64_t>(static_cast<std::int64_t>(root)),
            "rank " + std::to_string(root)};
}

// The root's parameters on every rank, once the ranks agree on their layout.
template <ComputeElement T>
Parameters<T> broadcast_values(MPI_Comm communicator, const Parameters<T>& parameters, int root) {
    std::vector<T> buffer = flattened(parameters);
    detail::check(
        MPI_Bcast(
            buffer.data(), static_cast<int>(buffer.size()), datatype_of<T>(), root, communicator),
        "MPI_Bcast");
    return unflattened(parameters, buffer);
}

// Every rank's chunk of a buffer of starts.back() elements (rank r's chunk:
// counts[r] elements from starts[r]), on every rank.
template <ComputeElement T>
std::vector<T> gathered_chunks(MPI_Comm communicator,
                               std::span<const T> chunk,
                               std::vector<int>& counts,
                               std::vector<int>& starts) {
    std::vector<T> result(static_cast<std::size_t>(starts.back()));
    detail::check(MPI_Allgatherv(chunk.data(),
                                 static_cast<int>(chunk.size()),
                                 datatype_of<T>(),
                                 result.data(),
                                 counts.data(),
                                 starts.data(),
                                 datatype_of<T>(),
                                 communicator),
                  "MPI_Allgatherv");
    return result;
}

std::uint64_t broadcast_count(MPI_Comm communicator, std::uint64_t count, int root) {
    detail::check(MPI_Bcast(&count, 1, MPI_UINT64_T, root, communicator), "MPI_Bcast");
    return count;
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

void Communicator::check_agreement(std::span<const Agreement> agreements) const {
    detail::check_agreement(communicator_, size_, agreements);
}

template <ComputeElement T>
std::vector<T> Communicator::all_reduce(std::span<const T> values) const {
    const Agreement count = detail::element_count(values.size(), "the number of elements to sum");
    check_agreement(std::span(&count, 1));
    return sum_in_rank_order(values);
}

template <ComputeElement T>
std::vector<T> Communicator::sum_in_rank_order(std::span<const T> values) const {
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
    std::vector<T> result =
        gathered_chunks(communicator_, std::span<const T>(chunk), counts, starts);
    last_bytes_sent_ = (values.size() - static_cast<std::size_t>(mine) +
                        static_cast<std::size_t>(mine) * (ranks - 1)) *
                       sizeof(T);
    return result;
}

template <ComputeElement T>
Parameters<T> Communicator::all_reduce(const Parameters<T>& values) const {
    const Agreement layout = layout_of(values);
    check_agreement(std::span(&layout, 1));
    const std::vector<T> buffer = flattened(values);
    return unflattened(values, sum_in_rank_order(std::span<const T>(buffer)));
}

template <ComputeElement T>
Tensor<T> Communicator::all_reduce(const Tensor<T>& value) const {
    return Tensor<T>(value.shape(), all_reduce(value.data()));
}

template <ComputeElement T>
Parameters<T> Communicator::broadcast(const Parameters<T>& parameters, int root) const {
    const std::array agreements{root_of(root), layout_of(parameters)};
    check_agreement(agreements);
    check_root(root, size_);
    return broadcast_values(communicator_, parameters, root);
}

template <ComputeElement T>
optim::AdamState<T> Communicator::broadcast(const optim::AdamState<T>& state, int root) const {
    const std::array agreements{root_of(root),
                                layout_of(state.first_moment, "the first moments' shapes"),
                                layout_of(state.second_moment, "the second moments' shapes")};
    check_agreement(agreements);
    check_root(root, size_);
    // A braced list is evaluated in order: every rank calls the collectives alike.
    return {broadcast_count(communicator_, state.steps, root),
            broadcast_values(communicator_, state.first_moment, root),
            broadcast_values(communicator_, state.second_moment, root)};
}

template <ComputeElement T>
optim::SgdState<T> Communicator::broadcast(const optim::SgdState<T>& state, int root) const {
    const std::array agreements{root_of(root),
                                layout_of(state.momentum, "the momentum buffers' shapes")};
    check_agreement(agreements);
    check_root(root, size_);
    return {broadcast_count(communicator_, state.steps, root),
            broadcast_values(communicator_, state.momentum, root)};
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
template std::vector<float> Communicator::sum_in_rank_order(std::span<const float>) const;
template std::vector<double> Communicator::sum_in_rank_order(std::span<const double>) const;

}  // namespace topos::distributed
