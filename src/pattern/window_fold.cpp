// WindowFold: a convolution's image gradient, the rows of a product summed
// back onto the image windows they were read from, without the windows being
// laid out again. The structure is the adjoint of the windows matrix that
// WindowProduct reads:
//   Narrow? (Narrow? (Fold axis 2 (Fold axis 4 (
//       Permute [0, 3, 1, 4, 2, 5] (Reshape [N, OH, OW, C, KH, KW] (M))))))
// with M the [N*OH*OW, C*KH*KW] product. The fused kernel reads the taps
// straight out of M and sums them in the Folds' order (window_taps.hpp).
// Where M is itself the product G Permute [1, 0](W), as a convolution's
// recorded image gradient has it (W the filters matrix), the match takes the
// product in too: the kernel computes each image's M^T = W G^T with the
// exact GEMM (the same products added in the same order, so M's bits), whose
// rows are the taps of a window row laid out contiguously, and folds them
// from cache. A bf16 plan's election runs the float kernel on the widened
// inputs with the contract's roundings inside: the product's values and the
// first Fold's, each rounded to bf16 as its node's value is.
#include "pattern/window_fold.hpp"

#include "core/thread_pool.hpp"
#include "kernels/gemm.hpp"
#include "pattern/catalog.hpp"
#include "pattern/window_taps.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace topos::detail {
namespace {

// The match with M = MatMul(G, Permute [1, 0](W)) taken in.
Match with_product(const SpecView& spec, Match match, std::uint32_t product_index) {
    const Node& product = spec[product_index];
    const std::uint32_t gradient = product.operands()[0];
    const std::uint32_t transpose = product.operands()[1];
    auto& geometry = std::any_cast<WindowFoldGeometry&>(match.geometry);
    geometry.product = true;
    geometry.columns = spec[gradient].shape()[1];
    match.nodes.insert(match.nodes.end(), {product_index, transpose});
    std::sort(match.nodes.begin(), match.nodes.end());
    match.inputs = {gradient, spec[transpose].operands()[0]};
    return match;
}

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
    const std::uint32_t taps = reshape->operands()[0];
    Match match{PatternKind::WindowFold,
                root,
                std::move(nodes),
                {root},
                {taps},
                WindowFoldGeometry{g, folded->folded[1]}};
    const Node* product = spec.as(taps, Opcode::MatMul);
    if (product != nullptr && product->shape().rank() == 2 &&
        is_permute(spec, product->operands()[1], {1, 0})) {
        return with_product(spec, std::move(match), taps);
    }
    return match;
}

// Images are taken in blocks of at least this many windows, so that each
// block's product is long enough to be worth its packing.
constexpr std::size_t windows_per_product = 512;

// M^T [C*KH*KW, count*OH*OW] of images first .. first + count - 1 = W G^T
// over their rows of G, by the exact GEMM on this thread, into `transposed`.
template <Element T>
void transposed_taps(const WindowFoldGeometry& geometry,
                     std::span<const T* const> inputs,
                     std::size_t first,
                     std::size_t count,
                     T* transposed) {
    const WindowGeometry& g = geometry.window;
    const std::size_t depth = g.channels * g.taps();
    const std::size_t windows = count * g.outputs();
    const auto signed_size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    const std::ptrdiff_t columns = signed_size(geometry.columns);
    GemmOptions options;
    options.parallel_threshold = std::numeric_limits<std::size_t>::max();
    gemm_with<T>(options,
                 {1, depth, geometry.columns, windows},
                 {inputs[1], columns, 1, 0},
                 {inputs[0] + first * g.outputs() * geometry.columns, 1, columns, 0},
                 {transposed, signed_size(windows), 0});
}

// Images a block of the product form takes: about windows_per_product
// windows' worth, evened out so that the blocks share among the threads in
// whole rounds of equal blocks.
std::size_t images_per_block(const WindowGeometry& g) {
    const std::size_t least = std::max<std::size_t>(1, windows_per_product / g.outputs());
    const std::size_t threads = ThreadPool::instance().thread_count();
    std::size_t blocks = (g.batch + least - 1) / least;
    if (g.batch >= threads) {
        blocks = (blocks + threads - 1) / threads * threads;
    }
    return (g.batch + blocks - 1) / blocks;
}

// The product form: a block of images at a time, their M^T computed, then
// each of their planes folded from M^T's rows.
template <Element T, Interior interior>
void fold_products(const WindowFoldGeometry& geometry,
                   std::span<const T* const> inputs,
                   T* result) {
    const WindowGeometry& g = geometry.window;
    const std::size_t depth = g.channels * g.taps();
    const std::size_t plane = g.extent[0] * g.extent[1];
    const std::size_t per_block = images_per_block(g);
    const std::size_t blocks = (g.batch + per_block - 1) / per_block;
    const std::size_t work = per_block * depth * (g.outputs() + geometry.columns);
    for_each_plane(blocks, work, [&](std::size_t block) {
        const std::size_t first = block * per_block;
        const std::size_t count = std::min(per_block, g.batch - first);
        const std::size_t windows = count * g.outputs();
        thread_local std::vector<T> scratch;
        scratch.resize(depth * windows + g.size[0] * geometry.folded_width);
        T* transposed = scratch.data();
        T* line = transposed + depth * windows;
        transposed_taps(geometry, inputs, first, count, transposed);
        if constexpr (interior == Interior::RoundedToBf16) {
            round_in_float(transposed, depth * windows);
        }
        for (std::size_t image = 0; image < count; ++image) {
            for (std::size_t c = 0; c < g.channels; ++c) {
                T* out = result + ((first + image) * g.channels + c) * plane;
                const T* taps = transposed + c * g.taps() * windows + image * g.outputs();
                fold_window_plane<T, interior>(g, geometry.folded_width, taps, windows, line, out);
            }
        }
    });
}

// Plane (n, c) reads, from row (n, oh, ow) of the product, its taps (kh, kw)
// at columns (c, kh, kw), a row of windows at a time.
template <Element T, Interior interior = Interior::AsComputed>
void window_fold_kernel(const Match& match,
                        std::span<const T* const> inputs,
                        std::span<T* const> results) {
    const auto& geometry = match.geometry_as<WindowFoldGeometry>();
    const WindowGeometry& window = geometry.window;
    if (window.batch * window.channels * window.extent[0] * window.extent[1] == 0) {
        return;  // an empty image gradient
    }
    if (geometry.product) {
        fold_products<T, interior>(geometry, inputs, results[0]);
        return;
    }
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
            fold_window_row<T, interior>(g, geometry.folded_width, oh, taps, g.count[1], line, out);
        }
    });
}

}  // namespace

// The members emit their own operations.
PatternRow window_fold_row() {
    return {.kind = PatternKind::WindowFold,
            .match = match_window_fold,
            .kernel_f32 = window_fold_kernel<float>,
            .kernel_f64 = window_fold_kernel<double>,
            .kernel_bf16_in_float = window_fold_kernel<float, Interior::RoundedToBf16>,
            .splits_the_pool = true};
}

}  // namespace topos::detail
