// The agreements the collectives check before they run: an element count, a
// digest of tensors' shapes with the shapes written out, and the check itself,
// one MPI_Allgather of a word per agreement (a second collective, gathering
// the descriptions, runs only when the ranks disagree).
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/distributed/communicator.hpp>

#include <mpi.h>
#include <span>
#include <string>

namespace topos::distributed::detail {

// "n elements", compared by n.
Agreement element_count(std::size_t count, std::string what);

// The shapes of `tensors` in order, compared by a 64-bit digest (FNV-1a of
// the count, ranks and extents) and written out for the message.
template <ComputeElement T>
Agreement shapes_of(std::span<const Tensor<T>> tensors, std::string what);

// Throws CommunicationError on every rank of `communicator` unless every rank
// holds the same words; the message names the first agreement that differs
// and groups the ranks by what they hold.
void check_agreement(MPI_Comm communicator, int size, std::span<const Agreement> agreements);

extern template Agreement shapes_of(std::span<const Tensor<float>>, std::string);
extern template Agreement shapes_of(std::span<const Tensor<double>>, std::string);

}  // namespace topos::distributed::detail
