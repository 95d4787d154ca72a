// data::Dataset: tensors that share their first axis, one row per example
// (features and labels, say), and the rows of any subset of examples.
#pragma once

#include <topos/core/tensor.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace topos::data {

// The rows of `tensor` (along its first axis) at `positions`, in that order.
// Throws IndexError for a position past the rows, ShapeError for a rank-0 tensor.
template <ComputeElement T>
Tensor<T> rows(const Tensor<T>& tensor, std::span<const std::size_t> positions);

template <ComputeElement T>
class Dataset {
public:
    // Throws ShapeError for no tensors, for a rank-0 tensor (each needs a
    // leading batch axis), and for tensors whose first extents differ.
    explicit Dataset(std::vector<Tensor<T>> tensors);

    // The number of examples: the tensors' first extent.
    std::size_t size() const { return size_; }

    // The tensors, in the order given.
    std::span<const Tensor<T>> tensors() const { return tensors_; }

    // Tensor i; std::out_of_range past the last.
    const Tensor<T>& operator[](std::size_t i) const { return tensors_.at(i); }

    // Each tensor's rows at `positions`.
    std::vector<Tensor<T>> rows(std::span<const std::size_t> positions) const;

private:
    std::vector<Tensor<T>> tensors_;
    std::size_t size_;
};

extern template class Dataset<float>;
extern template class Dataset<double>;

}  // namespace topos::data
