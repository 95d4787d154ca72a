// Tensor<T>'s core: storage allocation (one shared buffer, on transparent
// huge pages when large; the default tensor shares a single zero),
// construction from values, scalar access, convert and bit_equal, numpy's
// broadcasting rule and the arithmetic operators that use it (bf16's
// computing in float, each result rounded once), and the nested-bracket text
// of operator<<, each element in its shortest round-trip decimal.
#include "core/bit_cast.hpp"
#include "core/broadcast_shape.hpp"
#include "core/float_text.hpp"
#include "core/tensor_elementwise.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace topos {

namespace detail {

void throw_element_count_mismatch(const Shape& shape, std::size_t given) {
    throw ShapeError("a tensor of shape " + shape.str() + " needs " +
                     std::to_string(shape.elements()) + " elements, but " + std::to_string(given) +
                     " were given");
}

std::optional<Shape> common_shape(const Shape& a, const Shape& b, BroadcastConflict& conflict) {
    const std::size_t rank = std::max(a.rank(), b.rank());
    std::array<std::size_t, Shape::max_rank> extents{};
    for (std::size_t axis = 0; axis < rank; ++axis) {
        const std::size_t from_end = rank - axis;
        const std::size_t x = from_end <= a.rank() ? a[a.rank() - from_end] : 1;
        const std::size_t y = from_end <= b.rank() ? b[b.rank() - from_end] : 1;
        if (x != y && x != 1 && y != 1) {
            conflict = {axis, x, y};
            return std::nullopt;
        }
        extents[axis] = x == 1 ? y : x;
    }
    return Shape(std::span<const std::size_t>(extents.data(), rank));
}

std::string broadcast_advice(const BroadcastConflict& conflict) {
    return "the shapes do not broadcast (axis " + std::to_string(conflict.axis) +
           " of the result: " + std::to_string(conflict.a) + " vs " + std::to_string(conflict.b) +
           "); aligned from the last axis, extents must be equal or 1";
}

Shape tensor_broadcast_shape(const Shape& a, const Shape& b, const char* operation) {
    const std::string operands =
        "tensor " + std::string(operation) + " of " + a.str() + " and " + b.str() + ": ";
    BroadcastConflict conflict{};
    std::optional<Shape> common;
    try {
        common = common_shape(a, b, conflict);
    } catch (const ShapeError& too_large) {
        throw ShapeError(operands + too_large.what());
    }
    if (!common) {
        throw ShapeError(operands + broadcast_advice(conflict));
    }
    return *common;
}

std::array<std::size_t, Shape::max_rank> broadcast_steps(const Shape& operand,
                                                         const Shape& result) {
    std::array<std::size_t, Shape::max_rank> steps{};
    const auto strides = operand.strides();
    const std::size_t offset = result.rank() - operand.rank();
    for (std::size_t axis = offset; axis < result.rank(); ++axis) {
        steps[axis] = operand[axis - offset] == 1 ? 0 : strides[axis - offset];
    }
    return steps;
}

}  // namespace detail

namespace {

#if defined(__linux__)
// Buffers of this many bytes or more are placed on 2 MiB boundaries and
// offered to the kernel's transparent huge pages: a model's weights and its
// activations then take a page fault a 2 MiB page rather than one every 4 KiB,
// which on a virtual machine is most of the time a load of fresh tensors costs.
constexpr std::size_t huge_page_bytes = std::size_t{2} << 20U;
constexpr std::size_t huge_page_threshold = std::size_t{8} << 20U;

// `count` default-initialised elements in a buffer of whole huge pages.
template <TensorElement T>
std::shared_ptr<T[]> allocate_huge(std::size_t count) {
    const std::size_t bytes =
        (count * sizeof(T) + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    void* memory = std::aligned_alloc(huge_page_bytes, bytes);
    if (memory == nullptr) {
        throw std::bad_alloc();
    }
    ::madvise(memory, bytes, MADV_HUGEPAGE);  // advice: refused, the buffer works all the same
    T* elements = static_cast<T*>(memory);
    std::uninitialized_default_construct_n(elements, count);
    return std::shared_ptr<T[]>(elements, [count](T* held) {
        std::destroy_n(held, count);
        std::free(held);
    });
}
#endif

}  // namespace

template <TensorElement T>
std::shared_ptr<T[]> Tensor<T>::allocate(std::size_t count) {
#if defined(__linux__)
    if (count * sizeof(T) >= huge_page_threshold) {
        return allocate_huge<T>(count);
    }
#endif
#if defined(__cpp_lib_smart_ptr_for_overwrite)
    return std::make_shared_for_overwrite<T[]>(count == 0 ? 1 : count);
#else
    // The same default-initialised elements, in a second allocation (the libc++
    // of Emscripten 3.1 has no make_shared_for_overwrite).
    return std::shared_ptr<T[]>(new T[count == 0 ? 1 : count]);
#endif
}

template <TensorElement T>
Tensor<T>::Tensor() {
    static const std::shared_ptr<T[]> zero = [] {
        auto buffer = allocate(1);
        buffer[0] = T{0};
        return buffer;
    }();
    storage_ = zero;
}

template <TensorElement T>
Tensor<T>::Tensor(T scalar) : storage_(allocate(1)) {
    storage_[0] = scalar;
}

template <TensorElement T>
Tensor<T>::Tensor(Shape shape, std::span<const T> values) : shape_(std::move(shape)) {
    if (values.size() != shape_.elements()) {
        detail::throw_element_count_mismatch(shape_, values.size());
    }
    storage_ = allocate(values.size());
    std::copy(values.begin(), values.end(), storage_.get());
}

template <TensorElement T>
Tensor<T> Tensor<T>::filled(Shape shape, T value) {
    return generate(std::move(shape),
                    [value](std::span<T> out) { std::fill(out.begin(), out.end(), value); });
}

template <TensorElement T>
T Tensor<T>::scalar() const {
    if (shape_.elements() != 1) {
        throw ShapeError("scalar() needs a one-element tensor, but this one has shape " +
                         shape_.str() + "; reduce it first (e.g. sum())");
    }
    return storage_[0];
}

template <TensorElement T>
T Tensor<T>::item() const {
    return scalar();
}

template <TensorElement T>
std::vector<T> Tensor<T>::to_vector() const {
    return {data().begin(), data().end()};
}

template <TensorElement T>
template <TensorElement U>
Tensor<U> Tensor<T>::convert() const {
    if constexpr (std::same_as<T, U>) {
        return *this;
    } else {
        return Tensor<U>::generate(shape_, [x = data()](std::span<U> out) {
            std::transform(x.begin(), x.end(), out.begin(), [](T value) {
                if constexpr (std::same_as<U, bf16>) {
                    return U(value);  // rounded once, from float or double alike
                } else {
                    return static_cast<U>(value);
                }
            });
        });
    }
}

template <TensorElement T>
bool Tensor<T>::bit_equal(const Tensor& other) const {
    if (!(shape_ == other.shape_)) {
        return false;
    }
    using Bits =
        std::conditional_t<sizeof(T) == 2,
                           std::uint16_t,
                           std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
    auto a = data();
    auto b = other.data();
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (detail::bit_cast<Bits>(a[i]) != detail::bit_cast<Bits>(b[i])) {
            return false;
        }
    }
    return true;
}

template <TensorElement T>
std::string Tensor<T>::str() const {
    std::ostringstream out;
    out << *this;
    return out.str();
}

namespace {

template <TensorElement T>
void write_element(std::ostream& out, T value) {
    if constexpr (std::same_as<T, bf16>) {
        out << to_string(value);
    } else {
        char buffer[64];
        auto result = detail::to_chars(buffer, buffer + sizeof buffer, value);
        out.write(buffer, result.ptr - buffer);
    }
}

// One arithmetic operation on two elements: in T, or, for bf16, on the
// elements widened to float, the result rounded once.
template <TensorElement T, class Operation>
T computed(T x, T y, Operation operation) {
    if constexpr (std::same_as<T, bf16>) {
        return bf16(operation(static_cast<float>(x), static_cast<float>(y)));
    } else {
        return operation(x, y);
    }
}

template <TensorElement T>
void write_nested(std::ostream& out,
                  const Tensor<T>& tensor,
                  std::size_t axis,
                  std::size_t offset) {
    const Shape& shape = tensor.shape();
    if (axis == shape.rank()) {
        write_element(out, tensor.data()[offset]);
        return;
    }
    const std::size_t stride = shape.strides()[axis];
    out << '[';
    for (std::size_t i = 0; i < shape[axis]; ++i) {
        if (i) {
            out << ", ";
        }
        write_nested(out, tensor, axis + 1, offset + i * stride);
    }
    out << ']';
}

}  // namespace

template <TensorElement T>
Tensor<T> operator+(const Tensor<T>& a, const Tensor<T>& b) {
    return detail::broadcast_elementwise(
        a, b, "addition", [](T x, T y) { return computed(x, y, std::plus<>()); });
}

template <TensorElement T>
Tensor<T> operator-(const Tensor<T>& a, const Tensor<T>& b) {
    return detail::broadcast_elementwise(
        a, b, "subtraction", [](T x, T y) { return computed(x, y, std::minus<>()); });
}

template <TensorElement T>
Tensor<T> operator*(const Tensor<T>& a, const Tensor<T>& b) {
    return detail::broadcast_elementwise(
        a, b, "multiplication", [](T x, T y) { return computed(x, y, std::multiplies<>()); });
}

template <TensorElement T>
Tensor<T> operator/(const Tensor<T>& a, const Tensor<T>& b) {
    return detail::broadcast_elementwise(
        a, b, "division", [](T x, T y) { return computed(x, y, std::divides<>()); });
}

template <TensorElement T>
Tensor<T> operator-(const Tensor<T>& a) {
    auto x = a.data();
    return Tensor<T>::generate(a.shape(), [&](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = -x[i];
        }
    });
}

template <TensorElement T>
bool operator==(const Tensor<T>& a, const Tensor<T>& b) {
    return a.shape() == b.shape() &&
           std::equal(a.data().begin(), a.data().end(), b.data().begin(), b.data().end());
}

template <TensorElement T>
std::ostream& operator<<(std::ostream& out, const Tensor<T>& tensor) {
    write_nested(out, tensor, 0, 0);
    return out;
}

template class Tensor<float>;
template class Tensor<double>;
template class Tensor<bf16>;

#define TOPOS_INSTANTIATE_TENSOR_CONVERT(T)                     \
    template Tensor<float> Tensor<T>::convert<float>() const;   \
    template Tensor<double> Tensor<T>::convert<double>() const; \
    template Tensor<bf16> Tensor<T>::convert<bf16>() const;

TOPOS_INSTANTIATE_TENSOR_CONVERT(float)
TOPOS_INSTANTIATE_TENSOR_CONVERT(double)
TOPOS_INSTANTIATE_TENSOR_CONVERT(bf16)
#undef TOPOS_INSTANTIATE_TENSOR_CONVERT

#define TOPOS_INSTANTIATE_TENSOR_OPERATORS(T)                         \
    template Tensor<T> operator+(const Tensor<T>&, const Tensor<T>&); \
    template Tensor<T> operator-(const Tensor<T>&, const Tensor<T>&); \
    template Tensor<T> operator*(const Tensor<T>&, const Tensor<T>&); \
    template Tensor<T> operator/(const Tensor<T>&, const Tensor<T>&); \
    template Tensor<T> operator-(const Tensor<T>&);                   \
    template bool operator==(const Tensor<T>&, const Tensor<T>&);     \
    template std::ostream& operator<<(std::ostream&, const Tensor<T>&);

TOPOS_INSTANTIATE_TENSOR_OPERATORS(float)
TOPOS_INSTANTIATE_TENSOR_OPERATORS(double)
TOPOS_INSTANTIATE_TENSOR_OPERATORS(bf16)
#undef TOPOS_INSTANTIATE_TENSOR_OPERATORS

}  // namespace topos
