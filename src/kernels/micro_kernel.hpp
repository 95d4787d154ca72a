// A GEMM micro-kernel: one rows x columns tile of C updated by a k block of
// packed panels. The A panel holds `rows` elements per k step, the B panel
// `columns`; the tile starts from +0 (accumulate false) or from the partial
// sums stored in C (accumulate true), and each element takes its k terms in
// ascending order with one fma each. The blocking sizes say how large the
// packed blocks around the kernel are (k per block, rows of A per block,
// columns of B per block).
#pragma once

#include <topos/core/tensor.hpp>

#include <cstddef>

namespace topos::detail {

template <Element T>
using TileFunction = void (*)(std::size_t depth,
                              const T* a_panel,
                              const T* b_panel,
                              T* c,
                              std::size_t c_row_stride,
                              bool accumulate);

template <Element T>
struct MicroKernel {
    TileFunction<T> tile;
    std::size_t rows;
    std::size_t columns;
    std::size_t depth_block;
    std::size_t row_block;
    std::size_t column_block;
};

template <Element T>
MicroKernel<T> portable_micro_kernel();

#if defined(__x86_64__)
// The wide tiles are two vectors across; a product of at most one vector's
// columns (a convolution of 8 or 16 filters, say) takes the narrow tile of one
// vector and more rows, so that it does not compute columns it throws away.
template <Element T>
MicroKernel<T> avx2_micro_kernel();

template <Element T>
MicroKernel<T> avx2_narrow_micro_kernel();

template <Element T>
MicroKernel<T> avx512_micro_kernel();

template <Element T>
MicroKernel<T> avx512_narrow_micro_kernel();
#endif

}  // namespace topos::detail
