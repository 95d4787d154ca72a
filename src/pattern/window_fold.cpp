// WindowFold: a convolution's image gradient, the rows of a product summed
// back onto the image windows they were read from, without the windows being
// laid out again. The structure is the adjoint of the windows matrix that
// WindowProduct reads:
//   Narrow? (Narrow? (Fold axis 2 (Fold axis 4 (
//       Permute [0, 3, 1, 4, 2, 5] (Reshape [N, OH, OW, C, KH, KW] (M))))))
// with M the [N*OH*OW, C*KH*KW] product. The fused kernel reads the taps
// straight out of M and sums them in the Folds' order (window_taps.hpp).
#include "pattern/catalog.hpp"
#include "pattern/window_taps.hpp"

#include <algorithm>
#include <vector>

namespace topos::detail {
namespace {

struct WindowFoldGeometry {
    WindowGeometry window;
    std::size_t folded_width = 0;
};

std::optional<Match> match_window_fold(const SpecView& spec, std::uint32_t root) {
    std::optional<FoldedWindows> folded = folded_windows(spec, root);
    if (!folded || !is_permute(spec, folded->taps, {0, 3, 1, 4, 2, 5})) {
        return std::nullopt;
    }
    const WindowGeometry& g = folded->geometry;
    const std::uint32_t rows = spec[folded->taps].operands()[0];
    const Node* reshape = spec.as(rows, Opcode::Reshape);
    if (reshape == nullptr ||
        reshape->shape() !=
            Shape{g.batch, g.count[0], g.count[1], g.channels, g.size[0], g.size[1]}) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> nodes = folded->nodes;
    nodes.push_back(folded->taps);
    nodes.push_back(rows);
    std::sort(nodes.begin(), nodes.end());
    return Match{PatternKind::WindowFold,
                 root,
                 std::move(nodes),
                 {root},
                 {reshape->operands()[0]},
                 WindowFoldGeometry{g, folded->folded[1]}};
}

// Plane (n, c) reads, from row (n, oh, ow) of the product, its taps (kh, kw)
// at columns (c, kh, kw), a row of windows at a time.
template <Element T>
void window_fold_kernel(const Match& match,
                        std::span<const T* const> inputs,
                        std::span<T* const> results) {
    const auto& geometry = match.geometry_as<WindowFoldGeometry>();
    const WindowGeometry& g = geometry.window;
    const std::size_t depth = g.channels * g.taps();
    const std::size_t plane = g.extent[0] * g.extent[1];
    for_each_plane(g.batch * g.channels, g.outputs() * g.taps(), [&](std::size_t p) {
        thread_local std::vector<T> scratch;
        scratch.resize(g.taps() * g.count[1] + g.size[0] * geometry.folded_width);
        T* taps = scratch.data();
        T* line = taps + g.taps() * g.count[1];
        T* out = results[0] + p * plane;
        zero_short(out, plane);
        const T* block =
            inputs[0] + (p / g.channels) * g.outputs() * depth + (p % g.channels) * g.taps();
        for (std::size_t oh = 0; oh < g.count[0]; ++oh) {
            for (std::size_t ow = 0; ow < g.count[1]; ++ow) {
                const T* window = block + (oh * g.count[1] + ow) * depth;
                for (std::size_t k = 0; k < g.taps(); ++k) {
                    taps[k * g.count[1] + ow] = window[k];
                }
            }
            fold_window_row(g, geometry.folded_width, oh, taps, g.count[1], line, out);
        }
    });
}

}  // namespace

// The members emit their own operations.
PatternRow window_fold_row() {
    return {.kind = PatternKind::WindowFold,
            .match = match_window_fold,
            .kernel_f32 = window_fold_kernel<float>,
            .kernel_f64 = window_fold_kernel<double>};
}

}  // namespace topos::detail
