// Reductions of a tensor for metrics and inspection, over all elements or
// along axes (torch's dim and keepdim): sums and means in the library's one
// striped summation order (so a metric computed here has the bits a recorded
// Sum would give), variance and standard deviation built from them, extremes
// that propagate NaN as the Max opcode does, and the positions of the first
// extreme as torch reports them.
#include "core/tensor_axis.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace topos {
namespace {

// The documented order (src/kernels/striped_sum.hpp, which this layer may not
// include): term a goes to partial a mod 16, each partial adds in ascending
// order from -0, then the partials fold in halves.
template <TensorElement T, class Term>
T striped_sum(std::size_t count, Term term) {
    constexpr std::size_t lanes = 16;
    std::array<T, lanes> partials{};
    partials.fill(T{-0.0});
    for (std::size_t a = 0; a < count; ++a) {
        partials[a % lanes] += term(a);
    }
    for (std::size_t half = lanes / 2; half >= 1; half /= 2) {
        for (std::size_t lane = 0; lane < half; ++lane) {
            partials[lane] += partials[lane + half];
        }
    }
    return partials[0];
}

// Calls reduce(term, count) for each output of a reduction along `axis`, in
// row-major order of the result, and stores what it returns.
template <TensorElement T, class Reduce>
Tensor<T> along(const Tensor<T>& tensor, std::size_t axis, Reduce reduce) {
    const detail::AxisBlocks split = detail::blocks_along(tensor.shape(), axis);
    const T* x = tensor.data().data();
    return Tensor<T>::generate(tensor.shape().without_axis(axis), [&](std::span<T> out) {
        for (std::size_t o = 0; o < split.outer; ++o) {
            for (std::size_t i = 0; i < split.inner; ++i) {
                const T* base = x + o * split.extent * split.inner + i;
                out[o * split.inner + i] =
                    reduce([base, stride = split.inner](std::size_t a) { return base[a * stride]; },
                           split.extent);
            }
        }
    });
}

// The first position whose term beats every earlier one; a NaN beats
// everything and nothing beats it, so the first NaN wins.
template <class Term, class Beats>
std::size_t first_extreme(std::size_t count, Term term, Beats beats) {
    std::size_t best = 0;
    for (std::size_t a = 1; a < count && !std::isnan(term(best)); ++a) {
        if (std::isnan(term(a)) || beats(term(a), term(best))) {
            best = a;
        }
    }
    return best;
}

template <TensorElement T>
std::string type_name() {
    if constexpr (std::same_as<T, bf16>) {
        return "bf16";
    } else {
        return std::same_as<T, float> ? "float" : "double";
    }
}

// bf16 reduces as float does, on its elements widened (exactly), and rounds
// each result once.
template <class Compute>
Tensor<bf16> in_float(const Tensor<bf16>& tensor, Compute compute) {
    return compute(tensor.template convert<float>()).template convert<bf16>();
}

// Positions are returned as T, so the last one must be exactly representable.
template <TensorElement T>
void require_positions(const char* method, std::size_t count, const std::string& over) {
    constexpr std::uint64_t exact = std::uint64_t{1} << std::numeric_limits<T>::digits;
    if (count == 0) {
        throw ShapeError(std::string(method) + " over " + over +
                         ": there are no elements to choose from");
    }
    if (count - 1 > exact) {
        throw ShapeError(std::string(method) + " over " + over + ": the index " +
                         std::to_string(count - 1) + " is not exactly representable in " +
                         type_name<T>() + "; convert to " +
                         (std::same_as<T, bf16> ? "float" : "double") + " first");
    }
}

std::string axis_of(std::size_t axis, const Shape& shape) {
    return "axis " + std::to_string(axis) + " of a " + shape.str() + " tensor";
}

// A reduction along `axis` with its axis kept, extent 1, when `keepdim`.
template <TensorElement T>
Tensor<T> kept(const Tensor<T>& result, const Shape& shape, std::size_t axis, bool keepdim) {
    return keepdim ? result.reshape(shape.with_extent(axis, 1)) : result;
}

template <TensorElement T, class Beats>
Tensor<T> arg_along(
    const Tensor<T>& tensor, const char* method, std::size_t axis, bool keepdim, Beats beats) {
    detail::require_tensor_axis(method, axis, tensor.shape());
    require_positions<T>(method, tensor.shape()[axis], axis_of(axis, tensor.shape()));
    return kept(along(tensor,
                      axis,
                      [beats](auto term, std::size_t count) {
                          return static_cast<T>(first_extreme(count, term, beats));
                      }),
                tensor.shape(),
                axis,
                keepdim);
}

// An extreme of nothing does not exist.
void require_extent(const char* method, std::size_t axis, const Shape& shape) {
    if (shape[axis] == 0) {
        throw ShapeError(std::string(method) + " over " + axis_of(axis, shape) +
                         ": the axis has no elements, so it has no " + method);
    }
}

// The extreme along `axis` by the Max opcode's scan: from -infinity (for max;
// +infinity for min), a term replaces the best so far when it beats it or is
// a NaN, so the bits agree with a recorded Max. An empty axis has no extreme.
template <TensorElement T, class Beats>
Tensor<T> extreme_along(
    const Tensor<T>& tensor, const char* method, std::size_t axis, T start, Beats beats) {
    detail::require_tensor_axis(method, axis, tensor.shape());
    require_extent(method, axis, tensor.shape());
    return along(tensor, axis, [start, beats](auto term, std::size_t count) {
        T best = start;
        for (std::size_t a = 0; a < count; ++a) {
            const T value = term(a);
            best = (beats(value, best) || value != value) ? value : best;
        }
        return best;
    });
}

std::string axes_text(std::span<const std::size_t> axes) {
    std::string text = "[";
    for (std::size_t i = 0; i < axes.size(); ++i) {
        text += (i ? ", " : "") + std::to_string(axes[i]);
    }
    return text + "]";
}

// The axes of a reduction over several, checked, in descending order: the
// order the tensor is reduced in (a recorded Value::sum(axes)'s).
std::vector<std::size_t> reduction_axes(const char* method,
                                        std::span<const std::size_t> axes,
                                        const Shape& shape) {
    const std::string where = std::string(method) + " over axes " + axes_text(axes) + " of a " +
                              shape.str() + " tensor: ";
    if (axes.empty()) {
        throw ShapeError(where + "name at least one axis (sum() and mean() reduce all of them)");
    }
    std::vector<std::size_t> sorted(axes.begin(), axes.end());
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i] >= shape.rank()) {
            throw ShapeError(where + "axis " + std::to_string(sorted[i]) +
                             " is outside the rank; the axes are 0 to " +
                             (shape.rank() == 0 ? std::string("none (rank 0)")
                                                : std::to_string(shape.rank() - 1)));
        }
        if (i > 0 && sorted[i] == sorted[i - 1]) {
            throw ShapeError(where + "axis " + std::to_string(sorted[i]) +
                             " is named twice; name each axis at most once");
        }
    }
    return sorted;
}

// Reduces along each of `axes`, highest first, by one-axis `reduce` (which
// removes its axis); `keepdim` puts them back with extent 1.
template <TensorElement T, class Reduce>
Tensor<T> over_axes(const Tensor<T>& tensor,
                    const char* method,
                    std::span<const std::size_t> axes,
                    bool keepdim,
                    Reduce reduce) {
    const std::vector<std::size_t> sorted = reduction_axes(method, axes, tensor.shape());
    Tensor<T> result = tensor;
    Shape kept_shape = tensor.shape();
    for (std::size_t axis : sorted) {
        result = reduce(result, axis);
        kept_shape = kept_shape.with_extent(axis, 1);
    }
    return keepdim ? result.reshape(kept_shape) : result;
}

// The number of elements that reduce into each result element.
std::size_t reduced_count(std::span<const std::size_t> axes, const Shape& shape) {
    std::size_t count = 1;
    for (std::size_t axis : axes) {
        count *= shape[axis];
    }
    return count;
}

// torch's divisor of the sum of squared deviations: max(0, n - correction).
template <TensorElement T>
T variance_divisor(std::size_t count, std::size_t correction) {
    return static_cast<T>(count > correction ? count - correction : 0);
}

// sum of (x - m)^2 / divisor, with m broadcast: the same operations a recorded
// x - mean, Mul, Sum, Div performs.
template <TensorElement T, class SumSquares>
Tensor<T> variance(const Tensor<T>& x,
                   const Tensor<T>& mean_kept,
                   std::size_t count,
                   std::size_t correction,
                   SumSquares sum_squares) {
    const Tensor<T> deviation = x - mean_kept;
    return sum_squares(deviation * deviation) / Tensor<T>(variance_divisor<T>(count, correction));
}

template <TensorElement T>
Tensor<T> square_root(const Tensor<T>& x) {
    return Tensor<T>::generate(x.shape(), [v = x.data()](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = std::sqrt(v[i]);
        }
    });
}

template <TensorElement T, class Beats>
Tensor<T> arg_all(const Tensor<T>& tensor, const char* method, Beats beats) {
    require_positions<T>(
        method, tensor.elements(), "all elements of a " + tensor.shape().str() + " tensor");
    const T* x = tensor.data().data();
    return Tensor<T>(static_cast<T>(first_extreme(
        tensor.elements(), [x](std::size_t a) { return x[a]; }, beats)));
}

template <TensorElement T, class Beats>
T extreme(const Tensor<T>& tensor, const char* method, Beats beats) {
    if (tensor.elements() == 0) {
        throw ShapeError(std::string(method) + "() of a " + tensor.shape().str() +
                         " tensor: there are no elements, so it has no " + method);
    }
    const auto x = tensor.data();
    return x[first_extreme(
        x.size(), [x](std::size_t a) { return x[a]; }, beats)];
}

constexpr auto beats_above = [](auto a, auto b) { return a > b; };
constexpr auto beats_below = [](auto a, auto b) { return a < b; };

}  // namespace

template <TensorElement T>
Tensor<T> Tensor<T>::argmax(std::size_t axis, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        detail::require_tensor_axis("argmax", axis, shape_);
        require_positions<T>("argmax", shape_[axis], axis_of(axis, shape_));
        return in_float(*this, [&](const Tensor<float>& x) { return x.argmax(axis, keepdim); });
    } else {
        return arg_along(*this, "argmax", axis, keepdim, beats_above);
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::argmin(std::size_t axis, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        detail::require_tensor_axis("argmin", axis, shape_);
        require_positions<T>("argmin", shape_[axis], axis_of(axis, shape_));
        return in_float(*this, [&](const Tensor<float>& x) { return x.argmin(axis, keepdim); });
    } else {
        return arg_along(*this, "argmin", axis, keepdim, beats_below);
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::argmax() const {
    if constexpr (std::same_as<T, bf16>) {
        require_positions<T>("argmax", elements(), "all elements of a " + shape_.str() + " tensor");
        return in_float(*this, [](const Tensor<float>& x) { return x.argmax(); });
    } else {
        return arg_all(*this, "argmax", beats_above);
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::argmin() const {
    if constexpr (std::same_as<T, bf16>) {
        require_positions<T>("argmin", elements(), "all elements of a " + shape_.str() + " tensor");
        return in_float(*this, [](const Tensor<float>& x) { return x.argmin(); });
    } else {
        return arg_all(*this, "argmin", beats_below);
    }
}

template <TensorElement T>
T Tensor<T>::sum() const {
    if constexpr (std::same_as<T, bf16>) {
        return bf16(convert<float>().sum());
    } else {
        return striped_sum<T>(elements(), [x = data()](std::size_t a) { return x[a]; });
    }
}

template <TensorElement T>
T Tensor<T>::mean() const {
    if constexpr (std::same_as<T, bf16>) {
        return bf16(convert<float>().mean());
    } else {
        return sum() / static_cast<T>(elements());
    }
}

template <TensorElement T>
T Tensor<T>::max() const {
    if constexpr (std::same_as<T, bf16>) {
        return bf16(convert<float>().max());
    } else {
        return extreme(*this, "max", beats_above);
    }
}

template <TensorElement T>
T Tensor<T>::min() const {
    if constexpr (std::same_as<T, bf16>) {
        return bf16(convert<float>().min());
    } else {
        return extreme(*this, "min", beats_below);
    }
}

template <TensorElement T>
T Tensor<T>::var() const {
    if constexpr (std::same_as<T, bf16>) {
        return bf16(convert<float>().var());
    } else {
        return variance(*this,
                        Tensor(mean()),
                        elements(),
                        1,
                        [](const Tensor& squares) { return Tensor(squares.sum()); })
            .item();
    }
}

template <TensorElement T>
T Tensor<T>::std() const {
    if constexpr (std::same_as<T, bf16>) {
        return bf16(convert<float>().std());
    } else {
        return std::sqrt(var());
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::sum(std::size_t axis, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.sum(axis, keepdim); });
    } else {
        detail::require_tensor_axis("sum", axis, shape_);
        return kept(along(*this,
                          axis,
                          [](auto term, std::size_t count) { return striped_sum<T>(count, term); }),
                    shape_,
                    axis,
                    keepdim);
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::sum(std::span<const std::size_t> axes, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.sum(axes, keepdim); });
    } else {
        return over_axes(*this, "sum", axes, keepdim, [](const Tensor& t, std::size_t axis) {
            return t.sum(axis);
        });
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::mean(std::size_t axis, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.mean(axis, keepdim); });
    } else {
        detail::require_tensor_axis("mean", axis, shape_);
        return kept(along(*this,
                          axis,
                          [](auto term, std::size_t count) {
                              return striped_sum<T>(count, term) / static_cast<T>(count);
                          }),
                    shape_,
                    axis,
                    keepdim);
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::mean(std::span<const std::size_t> axes, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.mean(axes, keepdim); });
    } else {
        const Tensor total =
            over_axes(*this, "mean", axes, keepdim, [](const Tensor& t, std::size_t axis) {
                return t.sum(axis);
            });
        return total / Tensor(static_cast<T>(reduced_count(axes, shape_)));
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::var(std::size_t axis, bool keepdim, std::size_t correction) const {
    const std::size_t one[] = {axis};
    return var(std::span<const std::size_t>(one), keepdim, correction);
}

template <TensorElement T>
Tensor<T> Tensor<T>::var(std::span<const std::size_t> axes,
                         bool keepdim,
                         std::size_t correction) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this,
                        [&](const Tensor<float>& x) { return x.var(axes, keepdim, correction); });
    } else {
        reduction_axes("var", axes, shape_);
        return variance(
            *this,
            mean(axes, true),
            reduced_count(axes, shape_),
            correction,
            [axes, keepdim](const Tensor& squares) { return squares.sum(axes, keepdim); });
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::std(std::size_t axis, bool keepdim, std::size_t correction) const {
    const std::size_t one[] = {axis};
    return std(std::span<const std::size_t>(one), keepdim, correction);
}

template <TensorElement T>
Tensor<T> Tensor<T>::std(std::span<const std::size_t> axes,
                         bool keepdim,
                         std::size_t correction) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this,
                        [&](const Tensor<float>& x) { return x.std(axes, keepdim, correction); });
    } else {
        reduction_axes("std", axes, shape_);
        return square_root(var(axes, keepdim, correction));
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::max(std::size_t axis, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.max(axis, keepdim); });
    } else {
        return kept(
            extreme_along(*this, "max", axis, -std::numeric_limits<T>::infinity(), beats_above),
            shape_,
            axis,
            keepdim);
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::max(std::span<const std::size_t> axes, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.max(axes, keepdim); });
    } else {
        for (std::size_t axis : reduction_axes("max", axes, shape_)) {
            require_extent("max", axis, shape_);
        }
        return over_axes(*this, "max", axes, keepdim, [](const Tensor& t, std::size_t axis) {
            return t.max(axis);
        });
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::min(std::size_t axis, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.min(axis, keepdim); });
    } else {
        return kept(
            extreme_along(*this, "min", axis, std::numeric_limits<T>::infinity(), beats_below),
            shape_,
            axis,
            keepdim);
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::min(std::span<const std::size_t> axes, bool keepdim) const {
    if constexpr (std::same_as<T, bf16>) {
        return in_float(*this, [&](const Tensor<float>& x) { return x.min(axes, keepdim); });
    } else {
        for (std::size_t axis : reduction_axes("min", axes, shape_)) {
            require_extent("min", axis, shape_);
        }
        return over_axes(*this, "min", axes, keepdim, [](const Tensor& t, std::size_t axis) {
            return t.min(axis);
        });
    }
}

template <TensorElement T>
Tensor<T> Tensor<T>::sum(std::initializer_list<std::size_t> axes, bool keepdim) const {
    return sum(std::span<const std::size_t>(axes.begin(), axes.size()), keepdim);
}

template <TensorElement T>
Tensor<T> Tensor<T>::mean(std::initializer_list<std::size_t> axes, bool keepdim) const {
    return mean(std::span<const std::size_t>(axes.begin(), axes.size()), keepdim);
}

template <TensorElement T>
Tensor<T> Tensor<T>::max(std::initializer_list<std::size_t> axes, bool keepdim) const {
    return max(std::span<const std::size_t>(axes.begin(), axes.size()), keepdim);
}

template <TensorElement T>
Tensor<T> Tensor<T>::min(std::initializer_list<std::size_t> axes, bool keepdim) const {
    return min(std::span<const std::size_t>(axes.begin(), axes.size()), keepdim);
}

template <TensorElement T>
Tensor<T> Tensor<T>::var(std::initializer_list<std::size_t> axes,
                         bool keepdim,
                         std::size_t correction) const {
    return var(std::span<const std::size_t>(axes.begin(), axes.size()), keepdim, correction);
}

template <TensorElement T>
Tensor<T> Tensor<T>::std(std::initializer_list<std::size_t> axes,
                         bool keepdim,
                         std::size_t correction) const {
    return std(std::span<const std::size_t>(axes.begin(), axes.size()), keepdim, correction);
}

#define TOPOS_INSTANTIATE(T)                                                                  \
    template Tensor<T> Tensor<T>::argmax(std::size_t, bool) const;                            \
    template Tensor<T> Tensor<T>::argmin(std::size_t, bool) const;                            \
    template Tensor<T> Tensor<T>::argmax() const;                                             \
    template Tensor<T> Tensor<T>::argmin() const;                                             \
    template T Tensor<T>::sum() const;                                                        \
    template T Tensor<T>::mean() const;                                                       \
    template T Tensor<T>::max() const;                                                        \
    template T Tensor<T>::min() const;                                                        \
    template T Tensor<T>::var() const;                                                        \
    template T Tensor<T>::std() const;                                                        \
    template Tensor<T> Tensor<T>::sum(std::size_t, bool) const;                               \
    template Tensor<T> Tensor<T>::sum(std::span<const std::size_t>, bool) const;              \
    template Tensor<T> Tensor<T>::mean(std::size_t, bool) const;                              \
    template Tensor<T> Tensor<T>::mean(std::span<const std::size_t>, bool) const;             \
    template Tensor<T> Tensor<T>::var(std::size_t, bool, std::size_t) const;                  \
    template Tensor<T> Tensor<T>::var(std::span<const std::size_t>, bool, std::size_t) const; \
    template Tensor<T> Tensor<T>::std(std::size_t, bool, std::size_t) const;                  \
    template Tensor<T> Tensor<T>::std(std::span<const std::size_t>, bool, std::size_t) const; \
    template Tensor<T> Tensor<T>::max(std::size_t, bool) const;                               \
    template Tensor<T> Tensor<T>::max(std::span<const std::size_t>, bool) const;              \
    template Tensor<T> Tensor<T>::min(std::size_t, bool) const;                               \
    template Tensor<T> Tensor<T>::min(std::span<const std::size_t>, bool) const;              \
    template Tensor<T> Tensor<T>::sum(std::initializer_list<std::size_t>, bool) const;        \
    template Tensor<T> Tensor<T>::mean(std::initializer_list<std::size_t>, bool) const;       \
    template Tensor<T> Tensor<T>::max(std::initializer_list<std::size_t>, bool) const;        \
    template Tensor<T> Tensor<T>::min(std::initializer_list<std::size_t>, bool) const;        \
    template Tensor<T> Tensor<T>::var(std::initializer_list<std::size_t>, bool, std::size_t)  \
        const;                                                                                \
    template Tensor<T> Tensor<T>::std(std::initializer_list<std::size_t>, bool, std::size_t) const;
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)
#undef TOPOS_INSTANTIATE

}  // namespace topos
