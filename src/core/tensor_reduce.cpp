// Reductions of a tensor for metrics and inspection: sums and means in the
// library's one striped summation order (so a metric computed here has the
// bits a recorded Sum would give), extremes that propagate NaN as the Max
// opcode does, and the positions of the first extreme as torch reports them.
#include "core/tensor_axis.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace topos {
namespace {

// The documented order (src/kernels/striped_sum.hpp, which this layer may not
// include): term a goes to partial a mod 16, each partial adds in ascending
// order from -0, then the partials fold in halves.
template <Element T, class Term>
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
template <Element T, class Reduce>
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

// Positions are returned as T, so the last one must be exactly representable.
template <Element T>
void require_positions(const char* method, std::size_t count, const std::string& over) {
    constexpr std::uint64_t exact = std::uint64_t{1} << std::numeric_limits<T>::digits;
    if (count == 0) {
        throw ShapeError(std::string(method) + " over " + over +
                         ": there are no elements to choose from");
    }
    if (count - 1 > exact) {
        throw ShapeError(std::string(method) + " over " + over + ": the index " +
                         std::to_string(count - 1) + " is not exactly representable in " +
                         (std::same_as<T, float> ? "float" : "double") + "; cast to double first");
    }
}

std::string axis_of(std::size_t axis, const Shape& shape) {
    return "axis " + std::to_string(axis) + " of a " + shape.str() + " tensor";
}

template <Element T, class Beats>
Tensor<T> arg_along(const Tensor<T>& tensor, const char* method, std::size_t axis, Beats beats) {
    detail::require_tensor_axis(method, axis, tensor.shape());
    require_positions<T>(method, tensor.shape()[axis], axis_of(axis, tensor.shape()));
    return along(tensor, axis, [beats](auto term, std::size_t count) {
        return static_cast<T>(first_extreme(count, term, beats));
    });
}

template <Element T, class Beats>
Tensor<T> arg_all(const Tensor<T>& tensor, const char* method, Beats beats) {
    require_positions<T>(
        method, tensor.elements(), "all elements of a " + tensor.shape().str() + " tensor");
    const T* x = tensor.data().data();
    return Tensor<T>(static_cast<T>(first_extreme(
        tensor.elements(), [x](std::size_t a) { return x[a]; }, beats)));
}

template <Element T, class Beats>
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

template <Element T>
Tensor<T> Tensor<T>::argmax(std::size_t axis) const {
    return arg_along(*this, "argmax", axis, beats_above);
}

template <Element T>
Tensor<T> Tensor<T>::argmin(std::size_t axis) const {
    return arg_along(*this, "argmin", axis, beats_below);
}

template <Element T>
Tensor<T> Tensor<T>::argmax() const {
    return arg_all(*this, "argmax", beats_above);
}

template <Element T>
Tensor<T> Tensor<T>::argmin() const {
    return arg_all(*this, "argmin", beats_below);
}

template <Element T>
T Tensor<T>::sum() const {
    return striped_sum<T>(elements(), [x = data()](std::size_t a) { return x[a]; });
}

template <Element T>
T Tensor<T>::mean() const {
    return sum() / static_cast<T>(elements());
}

template <Element T>
T Tensor<T>::max() const {
    return extreme(*this, "max", beats_above);
}

template <Element T>
T Tensor<T>::min() const {
    return extreme(*this, "min", beats_below);
}

template <Element T>
Tensor<T> Tensor<T>::sum(std::size_t axis) const {
    detail::require_tensor_axis("sum", axis, shape_);
    return along(
        *this, axis, [](auto term, std::size_t count) { return striped_sum<T>(count, term); });
}

template <Element T>
Tensor<T> Tensor<T>::mean(std::size_t axis) const {
    detail::require_tensor_axis("mean", axis, shape_);
    return along(*this, axis, [](auto term, std::size_t count) {
        return striped_sum<T>(count, term) / static_cast<T>(count);
    });
}

#define TOPOS_INSTANTIATE(T)                                 \
    template Tensor<T> Tensor<T>::argmax(std::size_t) const; \
    template Tensor<T> Tensor<T>::argmin(std::size_t) const; \
    template Tensor<T> Tensor<T>::argmax() const;            \
    template Tensor<T> Tensor<T>::argmin() const;            \
    template T Tensor<T>::sum() const;                       \
    template T Tensor<T>::mean() const;                      \
    template T Tensor<T>::max() const;                       \
    template T Tensor<T>::min() const;                       \
    template Tensor<T> Tensor<T>::sum(std::size_t) const;    \
    template Tensor<T> Tensor<T>::mean(std::size_t) const;
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
#undef TOPOS_INSTANTIATE

}  // namespace topos
