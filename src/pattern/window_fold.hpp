// WindowFold: a convolution's image gradient, the rows of a product summed
// back onto the image windows they were read from; its geometry is declared
// here so that a backend may serve the product form.
#pragma once

#include "pattern/structure.hpp"

#include <cstddef>

namespace topos::detail {

// The fold of M [N*OH*OW, C*KH*KW] onto the [N, C, H, W] image (H and W the
// window geometry's extent), read with the window geometry's padding.
struct WindowFoldGeometry {
    WindowGeometry window;
    std::size_t folded_width = 0;
    // The product form: inputs G [N*OH*OW, O] and W [C*KH*KW, O], M = G W^T;
    // `columns` is O.
    bool product = false;
    std::size_t columns = 0;
};

}  // namespace topos::detail
