// oneDNN's convolutions in the plan's layouts (onednn_support.hpp): the
// forward product, the image gradient and the filter gradient. Each creates
// its primitives for a geometry once (create_*, at lowering: a dnnl::error
// where oneDNN has none) and keeps them; each splits the batch among topos's
// threads.
#pragma once

#include "pattern/structure.hpp"

#include <cstddef>

namespace topos::detail::onednn {

// result [N*OH*OW, O] = the image [N, C, H, W]'s windows times filters [C*KH*KW, O].
void create_forward(const WindowGeometry& g, std::size_t columns);
void convolve(const WindowGeometry& g,
              std::size_t columns,
              const float* image,
              const float* filters,
              float* result);

// image gradient [N, C, H, W] = gradient [N*OH*OW, O] times filters^T, folded
// onto the windows it was read from.
void create_image_gradient(const WindowGeometry& g, std::size_t columns);
void image_gradient(const WindowGeometry& g,
                    std::size_t columns,
                    const float* gradient,
                    const float* filters,
                    float* result);

// filter gradient [C*KH*KW, O] = the image's windows^T times gradient [N*OH*OW, O].
void create_filter_gradient(const WindowGeometry& g, std::size_t columns);
void filter_gradient(const WindowGeometry& g,
                     std::size_t columns,
                     const float* image,
                     const float* gradient,
                     float* result);

}  // namespace topos::detail::onednn
