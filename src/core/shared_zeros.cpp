#include "core/shared_zeros.hpp"

#include "core/tensor_access.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>

namespace topos::detail {

namespace {

template <TensorElement T>
struct ZeroBuffer {
    std::mutex mutex;
    std::shared_ptr<T[]> buffer;
    std::size_t elements = 0;
};

}  // namespace

template <TensorElement T>
Tensor<T> shared_zeros(Shape shape) {
    static ZeroBuffer<T> zeros;
    const std::size_t elements = shape.elements();
    const std::lock_guard lock(zeros.mutex);
    if (zeros.buffer == nullptr || zeros.elements < elements) {
        zeros.buffer = TensorAccess::allocate<T>(elements);
        std::fill_n(zeros.buffer.get(), elements, T{0});
        zeros.elements = elements;
    }
    return TensorAccess::adopt(std::move(shape), zeros.buffer);
}

template Tensor<float> shared_zeros(Shape shape);
template Tensor<double> shared_zeros(Shape shape);
template Tensor<bf16> shared_zeros(Shape shape);

}  // namespace topos::detail
