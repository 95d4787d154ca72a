// The AVX-512F direct convolution: tiles of 12 positions x 2 vectors of filters,
// or 24 positions x 1, 24 zmm accumulators each (as the GEMM's tiles).
// Compiled for AVX-512F by a target push and pop only; called only where the
// processor runs it.
#if defined(__x86_64__)

#include "kernels/direct_convolution.hpp"
#include "kernels/lanes_avx512.hpp"
#include "kernels/micro_kernel.hpp"
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
#include "kernels/direct_convolution_x86.hpp"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace topos::detail {

template <Element T>
DirectConvolution<T> avx512_direct_convolution(std::size_t filters) {
    if constexpr (std::same_as<T, float>) {
        return direct_convolution_for<FloatLanes, 12, 24>(filters);
    } else {
        return direct_convolution_for<DoubleLanes, 12, 24>(filters);
    }
}

template DirectConvolution<float> avx512_direct_convolution<float>(std::size_t);
template DirectConvolution<double> avx512_direct_convolution<double>(std::size_t);

template <Element T>
DirectFilterGradient<T> avx512_direct_filter_gradient(const DirectConvolutionShape& shape) {
    if constexpr (std::same_as<T, float>) {
        return direct_filter_gradient_for<FloatLanes, 4, 4>(shape);
    } else {
        return direct_filter_gradient_for<DoubleLanes, 4, 4>(shape);
    }
}

template DirectFilterGradient<float> avx512_direct_filter_gradient<float>(
    const DirectConvolutionShape&);
template DirectFilterGradient<double> avx512_direct_filter_gradient<double>(
    const DirectConvolutionShape&);

}  // namespace topos::detail

#endif
