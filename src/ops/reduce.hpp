// What the single-axis reductions share: the shape rule (the axis is removed)
// and the striped summation order documented in sum.cpp, over any sequence of
// terms. A reduction over several axes is recorded as single-axis reductions,
// last axis first, so it has one documented order too.
#pragma once

#include "core/exact_math.hpp"
#include "ops/common.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace topos::detail {

inline constexpr std::size_t summation_lanes = 16;

// The reduced shape: operand 0 without the attribute's axis.
Shape reduce_axis_shape(const ShapeCheck& check);

// Folds `summation_lanes` partial rows of `width` values in halves into row 0.
template <Element T>
void fold_partials(T* partials, std::size_t width) {
    for (std::size_t half = summation_lanes / 2; half >= 1; half /= 2) {
        for (std::size_t lane = 0; lane < half; ++lane) {
            T* into = partials + lane * width;
            const T* from = partials + (lane + half) * width;
            for (std::size_t i = 0; i < width; ++i) {
                into[i] += from[i];
            }
        }
    }
}

// The striped sum of term(0), ..., term(count - 1).
template <Element T, class Term>
T striped_sum(std::size_t count, Term term) {
    std::array<T, summation_lanes> partials;
    partials.fill(T{-0.0});
    for (std::size_t a = 0; a < count; ++a) {
        partials[a % summation_lanes] += term(a);
    }
    fold_partials(partials.data(), 1);
    return partials[0];
}

// Calls visit(inputs, output) for every output of a reduction along `axis` of
// `shape`, where inputs(a) is the a-th term's offset.
template <class Visit>
void for_each_reduction(const Shape& shape, std::size_t axis, Visit visit) {
    const AxisSplit split = split_at(shape, axis);
    for (std::size_t o = 0; o < split.outer; ++o) {
        for (std::size_t i = 0; i < split.inner; ++i) {
            const std::size_t base = o * split.extent * split.inner + i;
            visit([&](std::size_t a) { return base + a * split.inner; },
                  o * split.inner + i,
                  split.extent);
        }
    }
}

// log(sum(exp(x[at(a)]))) over a = 0..count-1: m + log(sum(exp(x - m))) with m
// the largest term, so no exp overflows; an infinite or NaN m is the result.
template <Element T, class At>
T log_sum_exp_of(const T* x, At at, std::size_t count) {
    T top = -std::numeric_limits<T>::infinity();
    for (std::size_t a = 0; a < count; ++a) {
        const T term = x[at(a)];
        top = (term > top || term != term) ? term : top;
    }
    if (!std::isfinite(top)) {
        return top;  // -inf: every term is -inf; +inf or NaN propagate
    }
    const T total =
        striped_sum<T>(count, [&](std::size_t a) { return exact::exp(x[at(a)] - top); });
    return top + exact::log(total);
}

}  // namespace topos::detail
