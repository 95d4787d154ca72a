// Which direct convolution or filter gradient runs: AVX-512's tile where the
// filters fill its vectors, else AVX2's (an AVX-512 machine runs both), else
// none.
#include "kernels/direct_convolution.hpp"

namespace topos::detail {

template <Element T>
DirectConvolution<T> direct_convolution_kernel([[maybe_unused]] Isa isa,
                                               [[maybe_unused]] std::size_t filters) {
#if defined(__x86_64__)
    if (isa == Isa::Avx512) {
        if (const DirectConvolution<T> kernel = avx512_direct_convolution<T>(filters)) {
            return kernel;
        }
    }
    if (isa == Isa::Avx512 || isa == Isa::Avx2) {
        return avx2_direct_convolution<T>(filters);
    }
#endif
    return nullptr;
}

template <Element T>
DirectFilterGradient<T> direct_filter_gradient_kernel(
    [[maybe_unused]] Isa isa, [[maybe_unused]] const DirectConvolutionShape& shape) {
#if defined(__x86_64__)
    if (isa == Isa::Avx512) {
        if (const DirectFilterGradient<T> kernel = avx512_direct_filter_gradient<T>(shape)) {
            return kernel;
        }
    }
    if (isa == Isa::Avx512 || isa == Isa::Avx2) {
        return avx2_direct_filter_gradient<T>(shape);
    }
#endif
    return nullptr;
}

template DirectConvolution<float> direct_convolution_kernel<float>(Isa, std::size_t);
template DirectConvolution<double> direct_convolution_kernel<double>(Isa, std::size_t);
template DirectFilterGradient<float> direct_filter_gradient_kernel<float>(
    Isa, const DirectConvolutionShape&);
template DirectFilterGradient<double> direct_filter_gradient_kernel<double>(
    Isa, const DirectConvolutionShape&);

}  // namespace topos::detail
