// WindowProduct: the windows matrix of an image times a matrix, read from the
// image (a convolution, or its filter gradient); its geometry is declared here
// so tests can run either path of the filter gradient.
#pragma once

#include "pattern/match.hpp"
#include "pattern/structure.hpp"

#include <cstddef>

namespace topos::detail {

// The [N*OH*OW, C*KH*KW] windows matrix times a [C*KH*KW, O] matrix. Inputs:
// the image, the matrix. Transposed: the windows matrix's transpose times a
// [N*OH*OW, O] matrix (a convolution's filter gradient); it runs on the exact
// GEMM over the materialised windows matrix when `materialise_windows`, as
// rank-one updates otherwise. Both give the same bits.
struct WindowProductGeometry {
    WindowGeometry window;
    std::size_t columns = 0;  // O
    bool transposed = false;
    bool materialise_windows = true;
};

// The filter gradient materialises its windows matrix up to this many elements.
inline constexpr std::size_t largest_windows_matrix = std::size_t{1} << 22;

}  // namespace topos::detail
