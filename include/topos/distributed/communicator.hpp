// distributed::Communicator: a group of processes started by mpirun (Open MPI),
// and the two collectives data-parallel training needs, both deterministic:
//
// - broadcast(parameters, root): every rank gets the root's parameters;
// - all_reduce(values): every rank gets the sum over the ranks. The values are
//   flattened into one buffer; each rank owns a contiguous chunk of it, receives
//   that chunk from every rank (MPI_Alltoallv), adds the copies in rank order,
//   ((v_0 + v_1) + v_2) + ..., in the element type, and sends the sum back to
//   every rank (MPI_Allgatherv). So the sum of every element is taken in rank
//   order whatever the number of ranks, every rank receives the same bits, and
//   a rerun with as many ranks gives them again. Each rank sends and receives
//   2 (N - 1) / N of the buffer, as a ring all-reduce does.
//
// The first Communicator initialises MPI (MPI_THREAD_FUNNELED: only the thread
// that made it calls MPI) and MPI is finalised when the program exits. MPI
// errors are returned, not fatal, and thrown as CommunicationError. An
// exception that escapes main on one rank calls MPI_Abort, so the other ranks
// stop (mpirun ends them) instead of waiting in a collective for ever.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>
#include <topos/model/optim.hpp>
#include <topos/run/parameters.hpp>

#include <cstddef>
#include <cstdint>
#include <mpi.h>
#include <span>
#include <vector>

namespace topos::distributed {

// An MPI call failed; the message names the call and MPI's reason.
class CommunicationError : public Error {
public:
    using Error::Error;
};

class Communicator {
public:
    // MPI_COMM_WORLD: every process mpirun started.
    Communicator();

    // Another communicator (a split of the world, say); not owned.
    explicit Communicator(MPI_Comm communicator);

    // This process's rank in the group: 0 to size() - 1.
    int rank() const { return rank_; }

    // The number of ranks in the group.
    int size() const { return size_; }

    // The root's parameters on every rank; the other ranks' must have the same
    // slots and shapes (CommunicationError names a slot that differs).
    template <Element T>
    Parameters<T> broadcast(const Parameters<T>& parameters, int root = 0) const;

    // The root's optimizer state on every rank: its step count and buffers, so
    // that a run resumed from a checkpoint that one rank read goes on alike.
    template <Element T>
    optim::AdamState<T> broadcast(const optim::AdamState<T>& state, int root = 0) const;

    // The same for SGD's state.
    template <Element T>
    optim::SgdState<T> broadcast(const optim::SgdState<T>& state, int root = 0) const;

    // The sum over the ranks, slot by slot, in rank order (see above).
    template <Element T>
    Parameters<T> all_reduce(const Parameters<T>& values) const;

    // The sum over the ranks of one tensor, element by element, in rank order.
    template <Element T>
    Tensor<T> all_reduce(const Tensor<T>& value) const;

    // The buffer form of all_reduce: every rank passes as many elements.
    template <Element T>
    std::vector<T> all_reduce(std::span<const T> values) const;

    // Blocks until every rank has called it.
    void barrier() const;

    // Bytes this rank sent in its last all_reduce.
    std::uint64_t last_bytes_sent() const { return last_bytes_sent_; }

    // The MPI communicator, for calls of one's own.
    MPI_Comm handle() const { return communicator_; }

private:
    std::uint64_t broadcast_count(std::uint64_t count, int root) const;

    MPI_Comm communicator_;
    int rank_ = 0;
    int size_ = 1;
    mutable std::uint64_t last_bytes_sent_ = 0;
};

extern template Parameters<float> Communicator::broadcast(const Parameters<float>&, int) const;
extern template Parameters<double> Communicator::broadcast(const Parameters<double>&, int) const;
extern template optim::AdamState<float> Communicator::broadcast(const optim::AdamState<float>&,
                                                                int) const;
extern template optim::AdamState<double> Communicator::broadcast(const optim::AdamState<double>&,
                                                                 int) const;
extern template optim::SgdState<float> Communicator::broadcast(const optim::SgdState<float>&,
                                                               int) const;
extern template optim::SgdState<double> Communicator::broadcast(const optim::SgdState<double>&,
                                                                int) const;
extern template Parameters<float> Communicator::all_reduce(const Parameters<float>&) const;
extern template Parameters<double> Communicator::all_reduce(const Parameters<double>&) const;
extern template Tensor<float> Communicator::all_reduce(const Tensor<float>&) const;
extern template Tensor<double> Communicator::all_reduce(const Tensor<double>&) const;
extern template std::vector<float> Communicator::all_reduce(std::span<const float>) const;
extern template std::vector<double> Communicator::all_reduce(std::span<const double>) const;

}  // namespace topos::distributed
