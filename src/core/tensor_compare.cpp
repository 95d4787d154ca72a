// Elementwise comparisons as tensors of 0 and 1, so that a comparison feeds
// arithmetic and reductions directly: (predicted.equal(labels)).mean() is an
// accuracy. They take the shapes arithmetic takes (tensor_elementwise.hpp);
// C++'s own operators give IEEE's answers, so a NaN compares unequal to all.
#include "core/tensor_elementwise.hpp"
#include <topos/core/tensor.hpp>

namespace topos {
namespace {

template <TensorElement T, class Holds>
Tensor<T> compare(const Tensor<T>& a, const Tensor<T>& b, const char* name, Holds holds) {
    return detail::broadcast_elementwise(
        a, b, name, [holds](T x, T y) { return holds(x, y) ? T{1} : T{0}; });
}

}  // namespace

template <TensorElement T>
Tensor<T> Tensor<T>::equal(const Tensor& other) const {
    return compare(*this, other, "comparison equal", [](T x, T y) { return x == y; });
}

template <TensorElement T>
Tensor<T> Tensor<T>::not_equal(const Tensor& other) const {
    return compare(*this, other, "comparison not_equal", [](T x, T y) { return x != y; });
}

template <TensorElement T>
Tensor<T> Tensor<T>::less(const Tensor& other) const {
    return compare(*this, other, "comparison less", [](T x, T y) { return x < y; });
}

template <TensorElement T>
Tensor<T> Tensor<T>::less_equal(const Tensor& other) const {
    return compare(*this, other, "comparison less_equal", [](T x, T y) { return x <= y; });
}

template <TensorElement T>
Tensor<T> Tensor<T>::greater(const Tensor& other) const {
    return compare(*this, other, "comparison greater", [](T x, T y) { return x > y; });
}

template <TensorElement T>
Tensor<T> Tensor<T>::greater_equal(const Tensor& other) const {
    return compare(*this, other, "comparison greater_equal", [](T x, T y) { return x >= y; });
}

#define TOPOS_INSTANTIATE(T)                                          \
    template Tensor<T> Tensor<T>::equal(const Tensor<T>&) const;      \
    template Tensor<T> Tensor<T>::not_equal(const Tensor<T>&) const;  \
    template Tensor<T> Tensor<T>::less(const Tensor<T>&) const;       \
    template Tensor<T> Tensor<T>::less_equal(const Tensor<T>&) const; \
    template Tensor<T> Tensor<T>::greater(const Tensor<T>&) const;    \
    template Tensor<T> Tensor<T>::greater_equal(const Tensor<T>&) const;
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)
#undef TOPOS_INSTANTIATE

}  // namespace topos
