// Library-internal access to tensor storage: a fresh writable buffer, a tensor
// that adopts a buffer once it is filled, and the buffer of a tensor that no
// other tensor shares. Kernels that write results in place (plans writing
// declared values, optimizers updating what the caller gave up) go through
// here; a buffer that two tensors share is never written.
#pragma once

#include <topos/core/tensor.hpp>

#include <algorithm>
#include <memory>
#include <span>

namespace topos::detail {

struct TensorAccess {
    template <TensorElement T>
    static std::shared_ptr<T[]> allocate(std::size_t count) {
        return Tensor<T>::allocate(count);
    }

    template <TensorElement T>
    static Tensor<T> adopt(Shape shape, std::shared_ptr<T[]> buffer) {
        return Tensor<T>(std::move(shape), std::move(buffer));
    }

    // The buffer of `tensor` when no other tensor shares it (so it may be
    // overwritten once `tensor` is given up), else null.
    template <TensorElement T>
    static std::shared_ptr<T[]> unshared_buffer(const Tensor<T>& tensor) {
        return tensor.storage_.use_count() == 1 ? tensor.storage_ : nullptr;
    }

    // The elements of `tensor` to overwrite: its own buffer when no other
    // tensor shares it, else (first) a fresh copy that it then holds alone, so
    // no other tensor's value changes.
    template <TensorElement T>
    static std::span<T> writable(Tensor<T>& tensor) {
        const std::size_t count = tensor.shape_.elements();
        if (tensor.storage_.use_count() != 1) {
            std::shared_ptr<T[]> copy = Tensor<T>::allocate(count);
            std::copy_n(tensor.storage_.get(), count, copy.get());
            tensor.storage_ = std::move(copy);
        }
        return {tensor.storage_.get(), count};
    }
};

}  // namespace topos::detail
