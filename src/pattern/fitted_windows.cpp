// fitted_image: per spatial axis, the zeros below the image, the image
// elements the windows reach (the rest sliced off) and the zeros above up to
// the last window's reach, for a raised convolution or reduce_window.
#include "pattern/fitted_windows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

// One spatial axis of the padded image the windows read: `low` zeros, the
// first `keep` image elements, `high` zeros; in all, what the last window reaches.
struct AxisFit {
    std::size_t low, keep, high;
};

AxisFit fit_axis(const WindowGeometry& g, std::size_t d) {
    const bool empty = g.count[d] == 0 || g.size[d] == 0;
    const std::size_t reach =
        empty ? 0 : (g.count[d] - 1) * g.step[d] + (g.size[d] - 1) * g.dilation[d] + 1;
    const std::size_t low = std::min(g.pad_before[d], reach);
    const std::size_t keep = std::min(g.extent[d], reach - low);
    return {low, keep, reach - low - keep};
}

}  // namespace

FittedImage fitted_image(HloBuilder& build, HloValue image, const WindowGeometry& g) {
    FittedImage fitted{image, {}};
    for (std::size_t d = 0; d < 2; ++d) {
        const AxisFit fit = fit_axis(g, d);
        if (fit.keep < g.extent[d]) {
            fitted.image = build.slice(fitted.image, 2 + d, 0, fit.keep, 1);
        }
        fitted.padding[d] = {fit.low, fit.high};
    }
    return fitted;
}

}  // namespace topos::detail
