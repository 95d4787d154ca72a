// WindowProduct: the windows matrix of an image times a matrix, read from the
// image (a convolution, or its filter gradient); its geometry is declared here
// so tests can choose the filter gradient's block size.
#pragma once

#include "pattern/match.hpp"
#include "pattern/structure.hpp"

#include <cstddef>

namespace topos::detail {

// The [N*OH*OW, C*KH*KW] windows matrix times a [C*KH*KW, O] matrix. Inputs:
// the image, the matrix. Transposed: the windows matrix's transpose times a
// [N*OH*OW, O] matrix (a convolution's filter gradient); it runs on the exact
// GEMM over blocks of whole window lines of about `block_elements` elements of
// the windows matrix (at least one line), each block's product continuing the
// sums of the last. Every block size gives the same bits. Windows that step
// and dilate by 1 take the direct kernels instead, where one fits.
struct WindowProductGeometry {
    WindowGeometry window;
    std::size_t columns = 0;  // O
    bool transposed = false;
    std::size_t block_elements = std::size_t{1} << 16;
    // Whether the direct kernels (kernels/direct_convolution.hpp) may serve
    // windows that step by 1; off, the exact GEMM does, as tests check.
    bool direct = true;
};

}  // namespace topos::detail
