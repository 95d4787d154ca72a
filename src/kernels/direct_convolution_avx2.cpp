// The AVX2 + FMA direct convolution: tiles of 6 positions x 2 vectors of filters,
// or 12 positions x 1, 12 ymm accumulators each (as the GEMM's tiles).
// Compiled for AVX2 + FMA by a target push and pop only; called only where the
// processor runs it.
#if defined(__x86_64__)

#include "kernels/direct_convolution.hpp"
#include "kernels/lanes_avx2.hpp"
#include "kernels/micro_kernel.hpp"
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#include "kernels/direct_convolution_x86.hpp"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace topos::detail {

template <Element T>
DirectConvolution<T> avx2_direct_convolution(std::size_t filters) {
    if constexpr (std::same_as<T, float>) {
        return direct_convolution_for<FloatLanes, 6, 12>(filters);
    } else {
        return direct_convolution_for<DoubleLanes, 6, 12>(filters);
    }
}

template DirectConvolution<float> avx2_direct_convolution<float>(std::size_t);
template DirectConvolution<double> avx2_direct_convolution<double>(std::size_t);

template <Element T>
DirectFilterGradient<T> avx2_direct_filter_gradient(const DirectConvolutionShape& shape) {
    if constexpr (std::same_as<T, float>) {
        return direct_filter_gradient_for<FloatLanes, 2, 4>(shape);
    } else {
        return direct_filter_gradient_for<DoubleLanes, 2, 4>(shape);
    }
}

template DirectFilterGradient<float> avx2_direct_filter_gradient<float>(
    const DirectConvolutionShape&);
template DirectFilterGradient<double> avx2_direct_filter_gradient<double>(
    const DirectConvolutionShape&);

}  // namespace topos::detail

#endif
