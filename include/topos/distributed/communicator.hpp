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
//
// Ranks that pass disagreeing things are refused before anything is summed or
// sent: each collective first gathers, in one MPI_Allgather, a word per thing
// every rank must hold alike (the element count, a digest of the parameters'
// shapes, a data-parallel step's global batch), and every rank throws the same
// CommunicationError, naming what differs and what each rank holds.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>
#include <topos/model/optim.hpp>
#include <topos/run/parameters.hpp>

#include <cstddef>
#include <cstdint>
#include <mpi.h>
#include <span>
#include <string>
#include <vector>

namespace topos::distributed {

// An MPI call failed; the message names the call and MPI's reason.
class CommunicationError : public Error {
public:
    using Error::Error;
};

// One thing every rank of a collective must hold alike: the word that compares
// it (a count, or a digest of shapes), what it is, and how this rank's reads,
// for the message that names what each rank holds when they differ.
struct Agreement {
    std::string what;         // "the number of elements to sum"
    std::uint64_t word = 0;   // equal on every rank exactly when they agree
    std::string description;  // "12 elements", "[60, 30] and [60]"
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
    template <ComputeElement T>
    Parameters<T> broadcast(const Parameters<T>& parameters, int root = 0) const;

    // The root's optimizer state on every rank: its step count and buffers, so
    // that a run resumed from a checkpoint that one rank read goes on alike.
    template <ComputeElement T>
    optim::AdamState<T> broadcast(const optim::AdamState<T>& state, int root = 0) const;

    // The same for SGD's state.
    template <ComputeElement T>
    optim::SgdState<T> broadcast(const optim::SgdState<T>& state, int root = 0) const;

    // The sum over the ranks, slot by slot, in rank order (see above).
    template <ComputeElement T>
    Parameters<T> all_reduce(const Parameters<T>& values) const;

    // The sum over the ranks of one tensor, element by element, in rank order.
    template <ComputeElement T>
    Tensor<T> all_reduce(const Tensor<T>& value) const;

    // The buffer form of all_reduce: every rank passes as many elements.
    template <ComputeElement T>
    std::vector<T> all_reduce(std::span<const T> values) const;

    // Checks, in one collective, that every rank holds the same `agreements`
    // (each rank passes as many, in the same order). When one differs, every
    // rank throws CommunicationError naming the first that differs and what
    // each rank holds.
    void check_agreement(std::span<const Agreement> agreements) const;

    // Blocks until every rank has called it.
    void barrier() const;

    // Bytes this rank sent in its last all_reduce.
    std::uint64_t last_bytes_sent() const { return last_bytes_sent_; }

    // The MPI communicator, for calls of one's own.
    MPI_Comm handle() const { return communicator_; }

private:
    // The sum over the ranks in rank order, once the ranks are known to agree
    // on the element count.
    template <ComputeElement T>
    std::vector<T> sum_in_rank_order(std::span<const T> values) const;

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
