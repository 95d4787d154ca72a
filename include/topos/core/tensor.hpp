// Tensor<T>: a shape and its elements in row-major order. Tensors are values:
// copies share one immutable buffer, so copying is cheap and never observable.
// A scalar is a rank-0 tensor; arithmetic between tensors accepts equal shapes
// or a rank-0 operand, which broadcasts. T is float or double.
#pragma once

#include <topos/core/shape.hpp>

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <ranges>
#include <span>
#include <string>

namespace topos {

template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double>;

namespace detail {
[[noreturn]] void throw_element_count_mismatch(const Shape& shape, std::size_t given);
struct TensorAccess;
}  // namespace detail

template <Element T>
class Tensor {
public:
    using value_type = T;

    // A rank-0 tensor holding zero (shares one static buffer: never allocates).
    Tensor();

    // A rank-0 tensor (implicit, so `run.of(x)` compares and feeds read naturally).
    Tensor(T scalar);  // NOLINT(google-explicit-constructor)

    Tensor(Shape shape, std::initializer_list<T> values)
        : Tensor(std::move(shape), std::span<const T>(values.begin(), values.size())) {}

    // Copies the elements of any contiguous range of T; throws ShapeError when
    // the count differs from shape.elements().
    template <std::ranges::contiguous_range R>

    requires std::same_as<std::ranges::range_value_t<R>, T> Tensor(Shape shape, const R& values)
        : Tensor(std::move(shape),
                 std::span<const T>(std::ranges::data(values), std::ranges::size(values))) {}

    Tensor(Shape shape, std::span<const T> values);

    static Tensor filled(Shape shape, T value);

    // Builds a tensor by letting `fill` write every element of a fresh buffer.
    template <class Fill>
    static Tensor generate(Shape shape, Fill&& fill) {
        auto buffer = allocate(shape.elements());
        fill(std::span<T>(buffer.get(), shape.elements()));
        return Tensor(std::move(shape), std::move(buffer));
    }

    const Shape& shape() const { return shape_; }

    std::size_t elements() const { return shape_.elements(); }

    std::span<const T> data() const { return {storage_.get(), shape_.elements()}; }

    // The single element of a one-element tensor; throws ShapeError otherwise.
    T scalar() const;

    // Same shape and the same bits in every element (NaNs compare by payload).
    bool bit_equal(const Tensor& other) const;

    std::string str() const;

private:
    friend struct detail::TensorAccess;

    Tensor(Shape shape, std::shared_ptr<T[]> storage)
        : shape_(std::move(shape)), storage_(std::move(storage)) {}

    static std::shared_ptr<T[]> allocate(std::size_t count);

    Shape shape_;
    std::shared_ptr<T[]> storage_;
};

// Elementwise arithmetic: equal shapes, or one rank-0 operand that broadcasts.
template <Element T>
Tensor<T> operator+(const Tensor<T>& a, const Tensor<T>& b);
template <Element T>
Tensor<T> operator-(const Tensor<T>& a, const Tensor<T>& b);
template <Element T>
Tensor<T> operator*(const Tensor<T>& a, const Tensor<T>& b);
template <Element T>
Tensor<T> operator/(const Tensor<T>& a, const Tensor<T>& b);
template <Element T>
Tensor<T> operator-(const Tensor<T>& a);

// Value equality: same shape and elementwise ==.
template <Element T>
bool operator==(const Tensor<T>& a, const Tensor<T>& b);

// Nested brackets, ", " separators, each element as the shortest decimal that
// reads back to the same value: [[0.6397, 0.75025934], [1.2794, 1.5005187]].
template <Element T>
std::ostream& operator<<(std::ostream& out, const Tensor<T>& tensor);

extern template class Tensor<float>;
extern template class Tensor<double>;

}  // namespace topos
