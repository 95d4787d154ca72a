// The rows of LogSumExp and LogSoftmax: along one axis, m + log(sum(exp(a - m)))
// with m the row's maximum, the sum in the striped order (kernels/striped_sum.hpp),
// so no exp overflows and extreme logits stay finite. The functions that take
// the exps and the log are a parameter: the exact ones for every Exact plan,
// the Fast lanes' under Numerics::Fast (backend/lanes). Rows are computed alone,
// so sharing them among the pool's threads never changes a bit.
#pragma once

#include "core/exact_math.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/striped_sum.hpp"
#include "kernels/transcendental.hpp"
#include <topos/core/shape.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace topos::detail {

// The oracle's functions: exps in the exact vector lanes, on this thread.
struct ExactExpAndLog {
    template <Element T>
    void exp_in_place(T* terms, std::size_t count) const {
        exact_map_on_this_thread(ExactFunction::Exp, terms, terms, count);
    }

    template <Element T>
    T log(T sum) const {
        return exact::log(sum);
    }
};

// striped_sum of exp(x[at(a)] - top) over a = 0..count-1, the exps taken a
// chunk of terms at a time by `functions`, then added in the striped order.
template <Element T, class At, class Functions>
T striped_sum_of_exp_below(
    const T* x, At at, std::size_t count, T top, const Functions& functions) {
    constexpr std::size_t chunk = 256;
    std::array<T, chunk> terms{};
    std::array<T, summation_lanes> partials{};
    partials.fill(T{-0.0});
    for (std::size_t first = 0; first < count; first += chunk) {
        const std::size_t length = std::min(chunk, count - first);
        for (std::size_t j = 0; j < length; ++j) {
            terms[j] = x[at(first + j)] - top;
        }
        functions.exp_in_place(terms.data(), length);
        for (std::size_t j = 0; j < length; ++j) {
            partials[(first + j) % summation_lanes] += terms[j];
        }
    }
    fold_partials(partials.data(), 1);
    return partials[0];
}

// The largest of x[at(a)] over a = 0..count-1 (-inf for none), or where the
// row holds a NaN its last NaN: what top = (term > top || term != term) ?
// term : top gives. Sixteen stripes keep running maxima side by side, so no
// term waits for the comparison before it; a row with a NaN is read again by
// that loop. Of two equal zeros either may come out: a zero maximum enters
// only x - top and top + log(sum) with log(sum) >= +0, whose bits are the
// same for +0 and -0.
template <Element T, class At>
T row_maximum(const T* x, At at, std::size_t count) {
    constexpr std::size_t stripes = 16;
    std::array<T, stripes> tops{};
    tops.fill(-std::numeric_limits<T>::infinity());
    bool unordered = false;
    std::size_t a = 0;
    for (; a + stripes <= count; a += stripes) {
        for (std::size_t s = 0; s < stripes; ++s) {
            const T term = x[at(a + s)];
            tops[s] = term > tops[s] ? term : tops[s];
            unordered |= term != term;
        }
    }
    for (; a < count; ++a) {
        const T term = x[at(a)];
        tops[0] = term > tops[0] ? term : tops[0];
        unordered |= term != term;
    }
    T top = -std::numeric_limits<T>::infinity();
    if (unordered) {
        for (a = 0; a < count; ++a) {
            const T term = x[at(a)];
            top = (term > top || term != term) ? term : top;
        }
        return top;
    }
    for (const T stripe : tops) {
        top = stripe > top ? stripe : top;
    }
    return top;
}

// log(sum(exp(x[at(a)]))) over a = 0..count-1; an infinite or NaN maximum is
// the result.
template <Element T, class At, class Functions>
T log_sum_exp_of(const T* x, At at, std::size_t count, const Functions& functions) {
    const T top = row_maximum(x, at, count);
    if (!std::isfinite(top)) {
        return top;  // -inf: every term is -inf; +inf or NaN propagate
    }
    return top + functions.log(striped_sum_of_exp_below(x, at, count, top, functions));
}

// visit(at, output, count) for every row along `axis` of `shape` (at(a) the
// offset of the row's a-th term, output the row's index), rows shared among
// the pool's threads when the tensor is large.
template <class Visit>
void for_each_row_along(const Shape& shape, std::size_t axis, Visit visit) {
    const AxisSplit split = split_at(shape, axis);
    for_each_range(
        split.outer * split.inner, split.extent, [&](std::size_t begin, std::size_t end) {
            for (std::size_t row = begin; row < end; ++row) {
                const std::size_t base =
                    (row / split.inner) * split.extent * split.inner + row % split.inner;
                if (split.inner == 1) {  // a contiguous row, whose loops run in vector lanes
                    visit([base](std::size_t a) { return base + a; }, row, split.extent);
                } else {
                    visit([base, inner = split.inner](std::size_t a) { return base + a * inner; },
                          row,
                          split.extent);
                }
            }
        });
}

// out[row] = logsumexp of each row along `axis` (the axis removed).
template <Element T, class Functions>
void log_sum_exp_rows(
    const T* x, const Shape& shape, std::size_t axis, T* out, const Functions& functions) {
    for_each_row_along(shape, axis, [&](auto at, std::size_t row, std::size_t count) {
        out[row] = log_sum_exp_of(x, at, count, functions);
    });
}

// out = x - logsumexp(x) along `axis` (the axis kept).
template <Element T, class Functions>
void log_softmax_rows(
    const T* x, const Shape& shape, std::size_t axis, T* out, const Functions& functions) {
    for_each_row_along(shape, axis, [&](auto at, std::size_t, std::size_t count) {
        const T normaliser = log_sum_exp_of(x, at, count, functions);
        for (std::size_t a = 0; a < count; ++a) {
            out[at(a)] = x[at(a)] - normaliser;
        }
    });
}

}  // namespace topos::detail
