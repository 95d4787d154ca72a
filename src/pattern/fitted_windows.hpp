// Raising window patterns to named StableHLO operations lays every window out
// so the operation yields exactly the match's window count: the image is
// sliced to what the windows reach and zero-padded below (the matched Pad) and
// above (up to the last window), since WindowGeometry keeps no padding after
// the image.
#pragma once

#include "hlo/builder.hpp"
#include "pattern/structure.hpp"

#include <array>
#include <cstddef>

namespace topos::detail {

// The [N, C, H, W] image sliced to the elements the windows reach, and the
// zero padding [low, high] each spatial axis still needs.
struct FittedImage {
    HloValue image;
    std::array<std::array<std::size_t, 2>, 2> padding{};
};

FittedImage fitted_image(HloBuilder& build, HloValue image, const WindowGeometry& g);

}  // namespace topos::detail
