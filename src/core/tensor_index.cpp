// Reading a tensor by position: single elements, and the layout methods that
// pick positions of one axis (narrow, slice, select) or see the same elements
// in another shape (reshape, flatten). Every failure is a user's mistake about
// a position, so each message quotes the position, the axis and the shape.
#include "core/tensor_axis.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <string>

namespace topos {

namespace {

std::string outside(const std::string& index, std::size_t axis, const Shape& shape) {
    return "index " + index + " on axis " + std::to_string(axis) + " of a " + shape.str() +
           " tensor is outside [0, " + std::to_string(shape[axis]) + ")";
}

}  // namespace

namespace detail {

void throw_index_count_mismatch(const Shape& shape, std::size_t given) {
    throw IndexError("a " + shape.str() + " tensor takes " + std::to_string(shape.rank()) +
                     (shape.rank() == 1 ? " index" : " indices") + ", one per axis, but " +
                     std::to_string(given) + (given == 1 ? " was" : " were") + " given");
}

void throw_negative_index(long long index, std::size_t axis, const Shape& shape) {
    throw IndexError(outside(std::to_string(index), axis, shape));
}

void require_tensor_axis(const char* method, std::size_t axis, const Shape& shape) {
    if (axis >= shape.rank()) {
        throw ShapeError(
            std::string(method) + " along axis " + std::to_string(axis) + " of a " + shape.str() +
            " tensor: the axes are 0 to " +
            (shape.rank() == 0 ? std::string("none (rank 0)") : std::to_string(shape.rank() - 1)));
    }
}

AxisBlocks blocks_along(const Shape& shape, std::size_t axis) {
    AxisBlocks split{.outer = 1, .extent = shape[axis], .inner = 1};
    for (std::size_t a = 0; a < axis; ++a) {
        split.outer *= shape[a];
    }
    for (std::size_t a = axis + 1; a < shape.rank(); ++a) {
        split.inner *= shape[a];
    }
    return split;
}

}  // namespace detail

namespace {

// Positions start, start + step, ... (count of them) of one axis, copied.
template <TensorElement T>
Tensor<T> take(const Tensor<T>& tensor,
               std::size_t axis,
               std::size_t start,
               std::size_t count,
               std::size_t step) {
    const detail::AxisBlocks split = detail::blocks_along(tensor.shape(), axis);
    const T* x = tensor.data().data();
    return Tensor<T>::generate(tensor.shape().with_extent(axis, count), [&](std::span<T> out) {
        T* into = out.data();
        for (std::size_t o = 0; o < split.outer; ++o) {
            for (std::size_t k = 0; k < count; ++k) {
                const T* run = x + (o * split.extent + start + k * step) * split.inner;
                into = std::copy_n(run, split.inner, into);
            }
        }
    });
}

}  // namespace

template <TensorElement T>
T Tensor<T>::at(std::span<const std::size_t> indices) const {
    if (indices.size() != shape_.rank()) {
        detail::throw_index_count_mismatch(shape_, indices.size());
    }
    const auto strides = shape_.strides();
    std::size_t offset = 0;
    for (std::size_t axis = 0; axis < indices.size(); ++axis) {
        if (indices[axis] >= shape_[axis]) {
            throw IndexError(outside(std::to_string(indices[axis]), axis, shape_));
        }
        offset += indices[axis] * strides[axis];
    }
    return storage_[offset];
}

template <TensorElement T>
Tensor<T> Tensor<T>::narrow(std::size_t axis, std::size_t start, std::size_t length) const {
    detail::require_tensor_axis("narrow", axis, shape_);
    const std::size_t extent = shape_[axis];
    if (start > extent || length > extent - start) {
        throw IndexError("narrow(axis " + std::to_string(axis) + ", start " +
                         std::to_string(start) + ", length " + std::to_string(length) + ") of a " +
                         shape_.str() + " tensor reaches past the axis: start + length must be " +
                         "at most its extent " + std::to_string(extent));
    }
    return take(*this, axis, start, length, 1);
}

template <TensorElement T>
Tensor<T> Tensor<T>::slice(std::size_t axis,
                           std::size_t start,
                           std::size_t stop,
                           std::size_t step) const {
    detail::require_tensor_axis("slice", axis, shape_);
    if (step == 0) {
        throw ShapeError("slice along axis " + std::to_string(axis) + " of a " + shape_.str() +
                         " tensor: the step must be at least 1, got 0");
    }
    const std::size_t extent = shape_[axis];
    if (start > extent || stop > extent) {
        throw IndexError("slice(axis " + std::to_string(axis) + ", start " + std::to_string(start) +
                         ", stop " + std::to_string(stop) + ") of a " + shape_.str() +
                         " tensor reaches past the axis: start and stop must be " +
                         "at most its extent " + std::to_string(extent));
    }
    const std::size_t count = stop > start ? (stop - start - 1) / step + 1 : 0;
    return take(*this, axis, start, count, step);
}

template <TensorElement T>
Tensor<T> Tensor<T>::select(std::size_t axis, std::size_t index) const {
    detail::require_tensor_axis("select", axis, shape_);
    if (index >= shape_[axis]) {
        throw IndexError("select: " + outside(std::to_string(index), axis, shape_));
    }
    return take(*this, axis, index, 1, 1).reshape(shape_.without_axis(axis));
}

template <TensorElement T>
Tensor<T> Tensor<T>::reshape(Shape shape) const {
    if (shape.elements() != elements()) {
        throw ShapeError("reshape of a " + shape_.str() + " tensor (" + std::to_string(elements()) +
                         " elements) to " + shape.str() + " (" + std::to_string(shape.elements()) +
                         " elements): the element counts must agree");
    }
    return Tensor(std::move(shape), storage_);
}

template <TensorElement T>
Tensor<T> Tensor<T>::flatten() const {
    return reshape(Shape{elements()});
}

#define TOPOS_INSTANTIATE(T)                                                                       \
    template T Tensor<T>::at(std::span<const std::size_t>) const;                                  \
    template Tensor<T> Tensor<T>::narrow(std::size_t, std::size_t, std::size_t) const;             \
    template Tensor<T> Tensor<T>::slice(std::size_t, std::size_t, std::size_t, std::size_t) const; \
    template Tensor<T> Tensor<T>::select(std::size_t, std::size_t) const;                          \
    template Tensor<T> Tensor<T>::reshape(Shape) const;                                            \
    template Tensor<T> Tensor<T>::flatten() const;
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)
#undef TOPOS_INSTANTIATE

}  // namespace topos
