// Tensor<T>: a shape and its elements in row-major order. Tensors are values:
// copies share one immutable buffer, so copying is cheap and never observable;
// every method returns a new tensor and leaves its operands as they were.
// A scalar is a rank-0 tensor; arithmetic and comparisons between tensors
// broadcast as numpy does (see operator+). T is float, double or bf16; a
// bf16 tensor computes each operation on its elements widened to float, as
// float's does, and rounds each result once to bf16 (docs/exact-math.md).
// docs/guide/tensors.md shows each method with an example.
#pragma once

#include <topos/core/bf16.hpp>
#include <topos/core/shape.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace topos {

// The element types a tape records, tensors hold and every later stage
// (networks, plans, the model layer) runs: float, double and bf16. A bf16
// operation widens its operands to float, computes as float's oracle does and
// rounds the result once (docs/exact-math.md, "bfloat16: the contract").
template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, bf16>;

// The earlier spelling of Element, kept for programs written against it.
template <class T>
concept TensorElement = Element<T>;

// The element types kernels compute in: a bf16 node's kernel is float's.
template <class T>
concept ComputeElement = std::same_as<T, float> || std::same_as<T, double>;

// How describe() lays a tensor out. Past `threshold` elements it shows only the
// first and last `edge_items` positions of every longer axis, with "..."
// between (PyTorch's threshold and edgeitems); `full` shows every element.
struct DescribeOptions {
    std::size_t threshold = 1000;
    std::size_t edge_items = 3;
    bool full = false;
};

namespace detail {
[[noreturn]] void throw_element_count_mismatch(const Shape& shape, std::size_t given);
[[noreturn]] void throw_index_count_mismatch(const Shape& shape, std::size_t given);
[[noreturn]] void throw_negative_index(long long index, std::size_t axis, const Shape& shape);
struct TensorAccess;

// An element index: any integer type but bool (t(true) is surely a mistake).
template <class I>
concept TensorIndex = std::integral<I> && !std::same_as<I, bool>;

// A signed index is checked for sign here, so that a negative one is reported
// as given rather than as the huge unsigned number it would wrap to.
template <TensorIndex I>
std::size_t unsigned_index(I index, std::size_t axis, const Shape& shape) {
    if constexpr (std::is_signed_v<I>) {
        if (index < 0) {
            throw_negative_index(static_cast<long long>(index), axis, shape);
        }
    }
    return static_cast<std::size_t>(index);
}
}  // namespace detail

template <TensorElement T>
class Tensor {
public:
    using value_type = T;

    // A rank-0 tensor holding zero (shares one static buffer: never allocates).
    Tensor();

    // A rank-0 tensor (implicit, so `run.of(x)` compares and feeds read naturally).
    Tensor(T scalar);  // NOLINT(google-explicit-constructor)

    // The elements of a braced list, row-major; ShapeError when the count differs.
    Tensor(Shape shape, std::initializer_list<T> values)
        : Tensor(std::move(shape), std::span<const T>(values.begin(), values.size())) {}

    // Copies the elements of any contiguous range of T; throws ShapeError when
    // the count differs from shape.elements().
    template <std::ranges::contiguous_range R>

    requires std::same_as<std::ranges::range_value_t<R>, T> Tensor(Shape shape, const R& values)
        : Tensor(std::move(shape),
                 std::span<const T>(std::ranges::data(values), std::ranges::size(values))) {}

    // Copies `values`; ShapeError when the count differs from shape.elements().
    Tensor(Shape shape, std::span<const T> values);

    // Every element `value`.
    static Tensor filled(Shape shape, T value);

    // Builds a tensor by letting `fill` write every element of a fresh buffer.
    template <class Fill>
    static Tensor generate(Shape shape, Fill&& fill) {
        auto buffer = allocate(shape.elements());
        fill(std::span<T>(buffer.get(), shape.elements()));
        return Tensor(std::move(shape), std::move(buffer));
    }

    // The extents of its axes.
    const Shape& shape() const { return shape_; }

    // The number of elements: shape().elements().
    std::size_t elements() const { return shape_.elements(); }

    // The elements in row-major order, a view of the shared buffer (no copy).
    std::span<const T> data() const { return {storage_.get(), shape_.elements()}; }

    // The single element of a one-element tensor; throws ShapeError otherwise.
    T scalar() const;

    // Same as scalar(), under PyTorch's name.
    T item() const;

    // A copy of the elements in row-major order.
    std::vector<T> to_vector() const;

    // The element at one index per axis: t(i, j) of a rank-2 tensor, t() of a
    // rank-0 one. Throws IndexError naming the index, axis and shape when the
    // count differs from the rank or an index is outside its axis. O(rank).
    template <detail::TensorIndex... I>
    T operator()(I... indices) const {
        if (sizeof...(I) != shape_.rank()) {
            detail::throw_index_count_mismatch(shape_, sizeof...(I));
        }
        return element(std::index_sequence_for<I...>{}, indices...);
    }

    // The same, with the indices as a list: t.at({i, j}), or any span of
    // std::size_t. Same errors.
    T at(std::initializer_list<std::size_t> indices) const {
        return at(std::span<const std::size_t>(indices.begin(), indices.size()));
    }

    // A list of another integer type (t.at({i, j}) with int i, j), so that it
    // neither fails to compile as narrowing nor hides a negative index.
    template <detail::TensorIndex I>
    T at(std::initializer_list<I> indices) const {
        if (indices.size() != shape_.rank()) {
            detail::throw_index_count_mismatch(shape_, indices.size());
        }
        std::array<std::size_t, Shape::max_rank> position{};
        std::size_t axis = 0;
        for (I index : indices) {
            position[axis] = detail::unsigned_index(index, axis, shape_);
            ++axis;
        }
        return at(std::span<const std::size_t>(position.data(), indices.size()));
    }

    // The same, the indices as a span of std::size_t, one per axis.
    T at(std::span<const std::size_t> indices) const;

    // Layout: each copies the chosen elements into a new tensor (O(elements
    // of the result)), except reshape and flatten, which share the buffer
    // (O(1)). An axis outside the rank
    // throws ShapeError; a position outside the axis throws IndexError; both
    // messages name the axis, the bounds and the shape.
    //
    // Positions start .. start + length - 1 of `axis` (torch.narrow).
    Tensor narrow(std::size_t axis, std::size_t start, std::size_t length) const;
    // Positions start, start + step, ... below stop (t[start:stop:step] along
    // `axis`); start and stop at most the extent, step at least 1 (else
    // ShapeError); empty when stop <= start.
    Tensor slice(std::size_t axis, std::size_t start, std::size_t stop, std::size_t step = 1) const;
    // Position `index` of `axis`, which is removed (torch.select, t[i]).
    Tensor select(std::size_t axis, std::size_t index) const;
    // The same elements in another shape of the same element count (else ShapeError).
    Tensor reshape(Shape shape) const;
    // The elements as a rank-1 tensor.
    Tensor flatten() const;

    // The index (as a T, exact) of the first maximum / minimum along `axis`,
    // which is removed, or kept with extent 1 when `keepdim` (torch.argmax);
    // a NaN counts as both, so the first NaN wins (as in torch). Throws
    // ShapeError when the axis is outside the rank or has extent 0, or when
    // its last index is not exactly representable in T (past 2^24 for
    // float). O(n).
    Tensor argmax(std::size_t axis, bool keepdim = false) const;
    Tensor argmin(std::size_t axis, bool keepdim = false) const;
    // The same over all elements: a rank-0 flat row-major index.
    Tensor argmax() const;
    Tensor argmin() const;

    // Reductions over all elements. sum() adds in T in the library's striped
    // order (the Sum opcode's, so the bits agree): element k goes to partial
    // sum k mod 16, each from -0, then the partials fold in halves. An empty
    // sum is -0; mean() is sum() / elements() (NaN when empty). max() and
    // min() propagate NaN and throw ShapeError when there are no elements.
    // var() is the unbiased variance: d = x - mean(), then (d * d).sum() in
    // the same striped order, divided by elements() - 1; std() is its square
    // root. All are O(n).
    T sum() const;
    T mean() const;
    T max() const;
    T min() const;
    T var() const;
    T std() const;

    // Reductions along axes, as torch's with `dim` and `keepdim`: the axes
    // are removed, or kept with extent 1 when `keepdim`, so that the result
    // broadcasts against the tensor: (x - x.mean(0, true)) / x.std(0, true)
    // standardises each column of a table.
    //
    // - sum along one axis adds in the Sum opcode's striped order (as sum()),
    //   so the bits agree with a recorded sum; mean is that sum divided by
    //   the extent.
    // - Over several axes (a braced list or a span, torch's dim tuple), the
    //   tensor is reduced along one axis at a time, the highest axis first:
    //   the order a recorded Value::sum(axes) and Value::mean(axes) use, so
    //   the bits agree again; mean divides by the product of the extents.
    // - var: m = mean(axes, true), d = x - m, then (d * d).sum(axes) divided
    //   by max(0, n - correction), where n is the number of elements reduced
    //   into each result (torch's formula; correction 1 is the unbiased
    //   variance, 0 the population one). So a lone element (n = 1) gives NaN
    //   (0 / 0) as in torch, and a larger correction gives +inf where the
    //   elements differ. std is the square root of var.
    // - max and min propagate NaN as the Max opcode does (torch.amax/amin).
    //
    // An axis reduced with extent 0 gives what an empty sum() gives: sum -0,
    // mean, var and std NaN; max and min throw ShapeError. An axis outside the
    // rank, an axis named twice and an empty list of axes throw ShapeError
    // naming the axes and the shape. O(n) per axis.
    //
    // Sum along `axis` or `axes`, in the Sum opcode's striped order.
    Tensor sum(std::size_t axis, bool keepdim = false) const;
    Tensor sum(std::span<const std::size_t> axes, bool keepdim = false) const;
    Tensor sum(std::initializer_list<std::size_t> axes, bool keepdim = false) const;
    // Mean along `axis` or `axes`: the sum divided by the count reduced.
    Tensor mean(std::size_t axis, bool keepdim = false) const;
    Tensor mean(std::span<const std::size_t> axes, bool keepdim = false) const;
    Tensor mean(std::initializer_list<std::size_t> axes, bool keepdim = false) const;
    // Variance along `axis` or `axes`: squared deviations from the mean summed,
    // divided by max(0, n - correction) (torch.var; 1 is unbiased).
    Tensor var(std::size_t axis, bool keepdim = false, std::size_t correction = 1) const;
    Tensor var(std::span<const std::size_t> axes,
               bool keepdim = false,
               std::size_t correction = 1) const;
    Tensor var(std::initializer_list<std::size_t> axes,
               bool keepdim = false,
               std::size_t correction = 1) const;
    // Standard deviation along `axis` or `axes`: the square root of var (torch.std).
    Tensor std(std::size_t axis, bool keepdim = false, std::size_t correction = 1) const;
    Tensor std(std::span<const std::size_t> axes,
               bool keepdim = false,
               std::size_t correction = 1) const;
    Tensor std(std::initializer_list<std::size_t> axes,
               bool keepdim = false,
               std::size_t correction = 1) const;
    // Maximum along `axis` or `axes`; NaN propagates (torch.amax).
    Tensor max(std::size_t axis, bool keepdim = false) const;
    Tensor max(std::span<const std::size_t> axes, bool keepdim = false) const;
    Tensor max(std::initializer_list<std::size_t> axes, bool keepdim = false) const;
    // Minimum along `axis` or `axes`; NaN propagates (torch.amin).
    Tensor min(std::size_t axis, bool keepdim = false) const;
    Tensor min(std::span<const std::size_t> axes, bool keepdim = false) const;
    Tensor min(std::initializer_list<std::size_t> axes, bool keepdim = false) const;

    // Elementwise comparisons giving 1 where they hold and 0 elsewhere. The
    // operands broadcast as in arithmetic (operator+; a plain T converts to a
    // rank-0 tensor); else ShapeError. A NaN compares false, except in
    // not_equal. (operator== is different: it
    // asks whether two whole tensors are equal, and returns bool.)
    Tensor equal(const Tensor& other) const;
    Tensor not_equal(const Tensor& other) const;
    Tensor less(const Tensor& other) const;
    Tensor less_equal(const Tensor& other) const;
    Tensor greater(const Tensor& other) const;
    Tensor greater_equal(const Tensor& other) const;

    // The same values in another element type, each rounded once to the
    // nearest (ties to even; bf16's rules in <topos/core/bf16.hpp>); the same
    // type shares the buffer. A widening (bf16 to float, float to double) is exact.
    template <TensorElement U>
    Tensor<U> convert() const;

    // Same shape and the same bits in every element (NaNs compare by payload).
    bool bit_equal(const Tensor& other) const;

    // The << text: one line, nested brackets, shortest round-trip decimals.
    std::string str() const;

    // For people: a first line naming the element type and shape
    // ("Tensor<float> [2, 3]"), then the elements with each column
    // right-aligned, one row per line, blank lines between blocks of rank 3
    // and more, large tensors elided in the middle (see DescribeOptions).
    // Rows are never wrapped. O(elements shown).
    std::string describe(const DescribeOptions& options = {}) const;

private:
    friend struct detail::TensorAccess;

    template <std::size_t... Axis, class... I>
    T element(std::index_sequence<Axis...> /*axes*/, I... indices) const {
        const std::array<std::size_t, sizeof...(I)> position{
            detail::unsigned_index(indices, Axis, shape_)...};
        return at(std::span<const std::size_t>(position));
    }

    Tensor(Shape shape, std::shared_ptr<T[]> storage)
        : shape_(std::move(shape)), storage_(std::move(storage)) {}

    static std::shared_ptr<T[]> allocate(std::size_t count);

    Shape shape_;
    std::shared_ptr<T[]> storage_;
};

// Elementwise arithmetic with numpy's broadcasting, as the recorded operators
// do: aligned from the last axis, each pair of extents is equal or one of them
// is 1, and an extent of 1 (or a missing axis) stretches to the other extent,
// 0 included; an extent of 0 never stretches. [8, 30] - [30] and
// [8, 30] / [1, 30] are [8, 30]; [0, 3] + [1, 3] is [0, 3]. Each element is
// the one operation in T on the two elements it lines up, so the bits equal
// the recorded graph's. Shapes that do not broadcast throw ShapeError naming
// both shapes and the conflicting axis of the result. O(elements of the
// result).
template <TensorElement T>
Tensor<T> operator+(const Tensor<T>& a, const Tensor<T>& b);
template <TensorElement T>
Tensor<T> operator-(const Tensor<T>& a, const Tensor<T>& b);
template <TensorElement T>
Tensor<T> operator*(const Tensor<T>& a, const Tensor<T>& b);
template <TensorElement T>
Tensor<T> operator/(const Tensor<T>& a, const Tensor<T>& b);
template <TensorElement T>
Tensor<T> operator-(const Tensor<T>& a);

// Value equality: same shape and elementwise ==.
template <TensorElement T>
bool operator==(const Tensor<T>& a, const Tensor<T>& b);

// Nested brackets, ", " separators, each element as the shortest decimal that
// reads back to the same value: [[0.6397, 0.75025934], [1.2794, 1.5005187]].
template <TensorElement T>
std::ostream& operator<<(std::ostream& out, const Tensor<T>& tensor);

extern template class Tensor<float>;
extern template class Tensor<double>;
extern template class Tensor<bf16>;

}  // namespace topos
