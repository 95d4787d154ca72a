// What the single-axis reductions share: the shape rule (the axis is removed)
// and the striped summation order documented in sum.cpp, over any sequence of
// terms. A reduction over several axes is recorded as single-axis reductions,
// last axis first, so it has one documented order too.
#pragma once

#include "core/exact_math.hpp"
#include "kernels/striped_sum.hpp"
#include "ops/common.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace topos::detail {

// The reduced shape: operand 0 without the attribute's axis.
Shape reduce_axis_shape(const ShapeCheck& check);

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
