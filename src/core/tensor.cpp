#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <ostream>
#include <sstream>

namespace topos {

namespace detail {

void throw_element_count_mismatch(const Shape& shape, std::size_t given) {
    throw ShapeError("a tensor of shape " + shape.str() + " needs " +
                     std::to_string(shape.elements()) + " elements, but " + std::to_string(given) +
                     " were given");
}

}  // namespace detail

template <Element T>
std::shared_ptr<T[]> Tensor<T>::allocate(std::size_t count) {
    return std::make_shared_for_overwrite<T[]>(count == 0 ? 1 : count);
}

template <Element T>
Tensor<T>::Tensor() {
    static const std::shared_ptr<T[]> zero = [] {
        auto buffer = allocate(1);
        buffer[0] = T{0};
        return buffer;
    }();
    storage_ = zero;
}

template <Element T>
Tensor<T>::Tensor(T scalar) : storage_(allocate(1)) {
    storage_[0] = scalar;
}

template <Element T>
Tensor<T>::Tensor(Shape shape, std::span<const T> values) : shape_(std::move(shape)) {
    if (values.size() != shape_.elements()) {
        detail::throw_element_count_mismatch(shape_, values.size());
    }
    storage_ = allocate(values.size());
    std::ranges::copy(values, storage_.get());
}

template <Element T>
Tensor<T> Tensor<T>::filled(Shape shape, T value) {
    return generate(std::move(shape), [value](std::span<T> out) { std::ranges::fill(out, value); });
}

template <Element T>
T Tensor<T>::scalar() const {
    if (shape_.elements() != 1) {
        throw ShapeError("scalar() needs a one-element tensor, but this one has shape " +
                         shape_.str() + "; reduce it first (e.g. sum())");
    }
    return storage_[0];
}

template <Element T>
bool Tensor<T>::bit_equal(const Tensor& other) const {
    if (!(shape_ == other.shape_)) {
        return false;
    }
    auto a = data();
    auto b = other.data();
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(a[i]) !=
            std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(b[i])) {
            return false;
        }
    }
    return true;
}

template <Element T>
std::string Tensor<T>::str() const {
    std::ostringstream out;
    out << *this;
    return out.str();
}

namespace {

template <Element T, class Op>
Tensor<T> elementwise(const Tensor<T>& a, const Tensor<T>& b, const char* name, Op op) {
    const bool a_scalar = a.shape().rank() == 0;
    const bool b_scalar = b.shape().rank() == 0;
    if (!(a.shape() == b.shape()) && !a_scalar && !b_scalar) {
        throw ShapeError(std::string("tensor ") + name +
                         " needs equal shapes or a rank-0 operand, got " + a.shape().str() +
                         " and " + b.shape().str());
    }
    const Shape& shape = a_scalar ? b.shape() : a.shape();
    auto x = a.data();
    auto y = b.data();
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = op(x[a_scalar ? 0 : i], y[b_scalar ? 0 : i]);
        }
    });
}

template <Element T>
void write_element(std::ostream& out, T value) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.write(buffer, result.ptr - buffer);
}

template <Element T>
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

template <Element T>
Tensor<T> operator+(const Tensor<T>& a, const Tensor<T>& b) {
    return elementwise(a, b, "addition", [](T x, T y) { return x + y; });
}

template <Element T>
Tensor<T> operator-(const Tensor<T>& a, const Tensor<T>& b) {
    return elementwise(a, b, "subtraction", [](T x, T y) { return x - y; });
}

template <Element T>
Tensor<T> operator*(const Tensor<T>& a, const Tensor<T>& b) {
    return elementwise(a, b, "multiplication", [](T x, T y) { return x * y; });
}

template <Element T>
Tensor<T> operator/(const Tensor<T>& a, const Tensor<T>& b) {
    return elementwise(a, b, "division", [](T x, T y) { return x / y; });
}

template <Element T>
Tensor<T> operator-(const Tensor<T>& a) {
    auto x = a.data();
    return Tensor<T>::generate(a.shape(), [&](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = -x[i];
        }
    });
}

template <Element T>
bool operator==(const Tensor<T>& a, const Tensor<T>& b) {
    return a.shape() == b.shape() && std::ranges::equal(a.data(), b.data());
}

template <Element T>
std::ostream& operator<<(std::ostream& out, const Tensor<T>& tensor) {
    write_nested(out, tensor, 0, 0);
    return out;
}

template class Tensor<float>;
template class Tensor<double>;

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
#undef TOPOS_INSTANTIATE_TENSOR_OPERATORS

}  // namespace topos
