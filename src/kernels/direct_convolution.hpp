// The exact direct convolution of windows that step and dilate by 1, and its
// filter gradient, without a windows matrix.
//  - Convolution, one image: out[p, o] = sum over k of windows[p, k] *
//    matrix[k, o], the taps k = (c, kh, kw) ascending. A register tile of
//    output positions broadcasts each tap straight from the image's
//    zero-padded planes; the filters of one tap row are vector lanes.
//  - Filter gradient, a batch: out[k, o] = sum over p of windows[p, k] *
//    gradient[p, o], the windows p = (n, oh, ow) ascending. A register tile of
//    taps (whole tap rows of a few channel lines) broadcasts each from the
//    padded planes; a row of the gradient is vector lanes.
// Each output starts at +0 and takes one fma a term: the exact GEMM's bits for
// the windows matrix (or its transpose) times the other operand.
#pragma once

#include <topos/core/isa.hpp>
#include <topos/core/tensor.hpp>

#include <cstddef>

namespace topos::detail {

struct DirectConvolutionShape {
    std::size_t channels;        // C
    std::size_t padded_rows;     // of each zero-padded plane: rows + kernel_rows - 1
    std::size_t padded_columns;  // columns + kernel_columns - 1
    std::size_t rows;            // OH: window rows
    std::size_t columns;         // OW: windows in a row
    std::size_t kernel_rows;     // KH
    std::size_t kernel_columns;  // KW
    std::size_t filters;         // O: columns of the matrix and of out
};

// Reads `padded` (C planes of padded_rows x padded_columns, then at least
// direct_convolution_slack readable elements: zeros, or the next image's
// planes) and the [C*KH*KW, O] row-major matrix; writes out [OH*OW, O],
// row-major.
template <Element T>
using DirectConvolution =
    void (*)(const DirectConvolutionShape& shape, const T* padded, const T* matrix, T* out);

// Reads `padded` (for each of `batch` images, C planes of padded_rows x
// padded_columns) and the [N*OH*OW, O] row-major gradient; writes the rows of
// out [C*KH*KW, O] of channel lines [first_line, first_line + lines), a line
// being the KW taps of one (c, kh).
template <Element T>
using DirectFilterGradient = void (*)(const DirectConvolutionShape& shape,
                                      std::size_t batch,
                                      const T* padded,
                                      const T* gradient,
                                      std::size_t first_line,
                                      std::size_t lines,
                                      T* out);

// Elements after the planes that a register tile may read (it computes whole
// tiles; what it reads there lands only in outputs it does not store).
inline constexpr std::size_t direct_convolution_slack = 32;

// The kernel for `filters` filters on `isa`, or null where no register tile
// fits: the portable set, or a filter count that is not a whole number of
// the set's vectors.
template <Element T>
DirectConvolution<T> direct_convolution_kernel(Isa isa, std::size_t filters);

// The filter gradient's kernel for `shape` on `isa`, or null: as the
// convolution's, and only for windows 3 taps wide.
template <Element T>
DirectFilterGradient<T> direct_filter_gradient_kernel(Isa isa, const DirectConvolutionShape& shape);

#if defined(__x86_64__)
// The instruction sets' kernels, or null (direct_convolution_avx2.cpp, _avx512.cpp).
template <Element T>
DirectConvolution<T> avx2_direct_convolution(std::size_t filters);

template <Element T>
DirectConvolution<T> avx512_direct_convolution(std::size_t filters);

template <Element T>
DirectFilterGradient<T> avx2_direct_filter_gradient(const DirectConvolutionShape& shape);

template <Element T>
DirectFilterGradient<T> avx512_direct_filter_gradient(const DirectConvolutionShape& shape);
#endif

}  // namespace topos::detail
