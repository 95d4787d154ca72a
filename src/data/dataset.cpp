// data::rows and Dataset<T>: picking whole rows of a tensor by position (an
// out-of-range position throws IndexError), and a dataset's tensors checked to
// share their first axis, one row per example.
#include <topos/core/error.hpp>
#include <topos/data/dataset.hpp>

#include <algorithm>
#include <string>

namespace topos::data {

template <ComputeElement T>
Tensor<T> rows(const Tensor<T>& tensor, std::span<const std::size_t> positions) {
    const Shape& shape = tensor.shape();
    if (shape.rank() == 0) {
        throw ShapeError(
            "rows of a rank-0 tensor: a dataset's tensors need a first axis of "
            "examples");
    }
    const std::size_t width = shape[0] == 0 ? 0 : tensor.elements() / shape[0];
    for (const std::size_t position : positions) {
        if (position >= shape[0]) {
            throw IndexError("row " + std::to_string(position) + " of a " + shape.str() +
                             " tensor is outside [0, " + std::to_string(shape[0]) + ")");
        }
    }
    return Tensor<T>::generate(shape.with_extent(0, positions.size()), [&](std::span<T> out) {
        for (std::size_t i = 0; i < positions.size(); ++i) {
            std::copy_n(tensor.data().begin() + static_cast<std::ptrdiff_t>(positions[i] * width),
                        width,
                        out.begin() + static_cast<std::ptrdiff_t>(i * width));
        }
    });
}

template <ComputeElement T>
Dataset<T>::Dataset(std::vector<Tensor<T>> tensors) : tensors_(std::move(tensors)), size_(0) {
    if (tensors_.empty()) {
        throw ShapeError("a dataset needs at least one tensor");
    }
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const Shape& shape = tensors_[i].shape();
        if (shape.rank() == 0) {
            throw ShapeError("tensor " + std::to_string(i) +
                             " of a dataset has shape [], a scalar: each tensor needs a leading "
                             "batch axis, one row per example (reshape a single example to "
                             "[1, ...])");
        }
        if (shape[0] != tensors_[0].shape()[0]) {
            throw ShapeError(
                "a dataset's tensors share their first axis, one row per example; "
                "tensor " +
                std::to_string(i) + " is " + shape.str() + " and tensor 0 is " +
                tensors_[0].shape().str());
        }
    }
    size_ = tensors_[0].shape()[0];
}

template <ComputeElement T>
std::vector<Tensor<T>> Dataset<T>::rows(std::span<const std::size_t> positions) const {
    std::vector<Tensor<T>> picked;
    picked.reserve(tensors_.size());
    for (const Tensor<T>& tensor : tensors_) {
        picked.push_back(data::rows(tensor, positions));
    }
    return picked;
}

template Tensor<float> rows(const Tensor<float>&, std::span<const std::size_t>);
template Tensor<double> rows(const Tensor<double>&, std::span<const std::size_t>);
template class Dataset<float>;
template class Dataset<double>;

}  // namespace topos::data
