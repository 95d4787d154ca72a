// The one documented summation order of topos: 16 lane-striped partial sums
// (term a goes to lane a mod 16, each lane adding in ascending order from -0),
// folded in halves (lane i += lane i + 8, then i + 4, i + 2, i + 1). Every sum
// of the library, vectorised or threaded, reproduces it.
#pragma once

#include "kernels/elementwise.hpp"
#include "kernels/striped_sum_avx2.hpp"

#include <array>
#include <concepts>
#include <cstddef>

namespace topos::detail {

inline constexpr std::size_t summation_lanes = 16;

// Folds `summation_lanes` partial rows of `width` values in halves into row 0.
template <class T>
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
template <class T, class Term>
T striped_sum(std::size_t count, Term term) {
    std::array<T, summation_lanes> partials{};
    partials.fill(T{-0.0});
    for (std::size_t a = 0; a < count; ++a) {
        partials[a % summation_lanes] += term(a);
    }
    fold_partials(partials.data(), 1);
    return partials[0];
}

// out[o] is the striped sum of x[o * extent .. (o + 1) * extent), o < runs:
// in AVX2 lanes where the processor has them (the same additions).
template <class T>
void striped_sums(const T* x, std::size_t runs, std::size_t extent, T* out) {
#if defined(TOPOS_HAS_AVX2_LOOPS)
    if constexpr (std::same_as<T, float> || std::same_as<T, double>) {
        if (runs_avx2_fma()) {
            striped_sums_avx2(x, runs, extent, out);
            return;
        }
    }
#endif
    for (std::size_t o = 0; o < runs; ++o) {
        out[o] = striped_sum<T>(extent, [run = x + o * extent](std::size_t i) { return run[i]; });
    }
}

// Calls visit(inputs, output, count) for every output of a reduction along
// `axis` of `shape`, where inputs(a) is the a-th term's offset.
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

}  // namespace topos::detail
