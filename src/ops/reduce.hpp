// What the single-axis reductions share: the shape rule (the axis is removed)
// and the striped summation order documented in sum.cpp, over any sequence of
// terms. A reduction over several axes is recorded as single-axis reductions,
// last axis first, so it has one documented order too.
#pragma once

#include "core/exact_math.hpp"
#include "kernels/striped_sum.hpp"
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace topos::detail {

// The reduced shape: operand 0 without the attribute's axis.
Shape reduce_axis_shape(const ShapeCheck& check);

// striped_sum of exp(x[at(a)] - top) over a = 0..count-1, the same terms added
// in the same order, the exps computed in vector lanes a chunk of terms at a
// time (kernels/transcendental.hpp, on this thread: rows are already shared).
template <Element T, class At>
T striped_sum_of_exp_below(const T* x, At at, std::size_t count, T top) {
    constexpr std::size_t chunk = 256;
    std::array<T, chunk> terms{};
    std::array<T, summation_lanes> partials{};
    partials.fill(T{-0.0});
    for (std::size_t first = 0; first < count; first += chunk) {
        const std::size_t length = std::min(chunk, count - first);
        for (std::size_t j = 0; j < length; ++j) {
            terms[j] = x[at(first + j)] - top;
        }
        exact_map_on_this_thread(ExactFunction::Exp, terms.data(), terms.data(), length);
        for (std::size_t j = 0; j < length; ++j) {
            partials[(first + j) % summation_lanes] += terms[j];
        }
    }
    fold_partials(partials.data(), 1);
    return partials[0];
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
    return top + exact::log(striped_sum_of_exp_below(x, at, count, top));
}

}  // namespace topos::detail
