// Library-internal access to tensor storage: a fresh writable buffer, and a
// tensor that adopts a buffer once it is filled. Kernels that write results in
// place (plans writing declared values) go through here; nothing writes a
// buffer after a tensor adopts it.
#pragma once

#include <topos/core/tensor.hpp>

#include <memory>

namespace topos::detail {

struct TensorAccess {
    template <Element T>
    static std::shared_ptr<T[]> allocate(std::size_t count) {
        return Tensor<T>::allocate(count);
    }

    template <Element T>
    static Tensor<T> adopt(Shape shape, std::shared_ptr<T[]> buffer) {
        return Tensor<T>(std::move(shape), std::move(buffer));
    }
};

}  // namespace topos::detail
