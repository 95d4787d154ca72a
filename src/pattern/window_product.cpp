// WindowProduct: the windows matrix of an image times a matrix, read from the
// image. Two forms are matched:
//   forward:    MatMul(Reshape(Permute(windows)), M)   [N*OH*OW, C*KH*KW] x [C*KH*KW, O]
//   transposed: MatMul(Permute(Reshape(...)), G)       [C*KH*KW, N*OH*OW] x [N*OH*OW, O]
// (the second is a convolution's filter gradient). The forward builds window
// rows a tile at a time; the transposed form sums over every window row, a
// block of them at a time, continuing its sums block to block. Both accumulate
// every output over ascending depth with one fma each, from +0, as MatMul does.
#include "pattern/window_product.hpp"

#include "core/thread_pool.hpp"
#include "kernels/direct_convolution.hpp"
#include "kernels/gemm.hpp"
#include "ops/common.hpp"
#include "pattern/catalog.hpp"
#include "pattern/fitted_windows.hpp"
#include "pattern/window_taps.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace topos::detail {
namespace {

// The windows matrix: Reshape [N*OH*OW, C*KH*KW] of Permute [0, 2, 4, 1, 3, 5]
// of the image's windows.
std::optional<ImageWindows> windows_matrix(const SpecView& spec, std::uint32_t index) {
    const Node* matrix = spec.as(index, Opcode::Reshape);
    if (matrix == nullptr) {
        return std::nullopt;
    }
    const std::uint32_t ordered = matrix->operands()[0];
    if (!is_permute(spec, ordered, {0, 2, 4, 1, 3, 5})) {
        return std::nullopt;
    }
    std::optional<ImageWindows> windows = image_windows(spec, spec[ordered].operands()[0]);
    if (!windows) {
        return std::nullopt;
    }
    const WindowGeometry& g = windows->geometry;
    if (matrix->shape() != Shape{g.batch * g.outputs(), g.channels * g.taps()}) {
        return std::nullopt;
    }
    windows->nodes.push_back(ordered);
    windows->nodes.push_back(index);
    return windows;
}

// Window rows per tile of the forward product, rounded to whole lines.
constexpr std::size_t rows_per_tile = 256;

// Below this many multiply-adds a direct product or filter gradient runs on
// the calling thread.
constexpr std::size_t parallel_direct_product = std::size_t{1} << 18;

// Below this many multiply-adds a filter gradient runs on the calling thread.
constexpr std::size_t parallel_filter_gradient = std::size_t{1} << 21;

// Channels [first, first + count) of an image.
struct ChannelRange {
    std::size_t first;
    std::size_t count;
};

// The windows matrix's transpose [K, P] for the P = lines * OW windows of
// lines first .. first + lines - 1 (a line is one (n, oh)) and the taps of
// `channels`, into `columns` whose rows are `stride` apart: row (c, kh, kw)
// holds that tap of every window, so each line of it is a strided run of one
// image row. Windows that step and dilate by 1 read runs of each plane's
// padded copy instead.
template <Element T>
void fill_window_columns(const WindowGeometry& g,
                         const T* image,
                         std::size_t first,
                         std::size_t lines,
                         ChannelRange channels,
                         T* columns,
                         std::size_t stride) {
    const std::size_t plane = g.extent[0] * g.extent[1];
    const std::size_t channel_end = channels.first + channels.count;
    if (!unit_steps(g)) {
        for (std::size_t line = first; line < first + lines; ++line) {
            const std::size_t n = line / g.count[0];
            const std::size_t oh = line % g.count[0];
            T* at = columns + (line - first) * g.count[1];
            for (std::size_t c = channels.first; c < channel_end; ++c) {
                gather_window_row(g,
                                  image + (n * g.channels + c) * plane,
                                  oh,
                                  at + (c - channels.first) * g.taps() * stride,
                                  stride);
            }
        }
        return;
    }
    thread_local std::vector<T> padded;
    const auto extent = padded_extent(g);
    padded.resize(extent[0] * extent[1]);
    for (std::size_t line = first; line < first + lines;) {
        const std::size_t n = line / g.count[0];
        const std::size_t oh = line % g.count[0];
        const std::size_t count = std::min(g.count[0] - oh, first + lines - line);
        T* at = columns + (line - first) * g.count[1];
        for (std::size_t c = channels.first; c < channel_end; ++c) {
            pad_plane(g, image + (n * g.channels + c) * plane, padded.data());
            gather_unit_step_rows(
                g, padded.data(), oh, count, at + (c - channels.first) * g.taps() * stride, stride);
        }
        line += count;
    }
}

// The shape the direct kernels read: unit-step windows over padded planes.
DirectConvolutionShape direct_shape(const WindowProductGeometry& geometry) {
    const WindowGeometry& g = geometry.window;
    const auto [padded_rows, padded_columns] = padded_extent(g);
    return {g.channels,
            padded_rows,
            padded_columns,
            g.count[0],
            g.count[1],
            g.size[0],
            g.size[1],
            geometry.columns};
}

// Every plane of the batch zero-padded, one after another, into `padded`,
// then `slack` zeroed elements.
template <Element T>
void pad_planes(const WindowGeometry& g,
                const T* image,
                std::size_t slack,
                std::vector<T>& padded) {
    const std::array<std::size_t, 2> extent = padded_extent(g);
    const std::size_t padded_plane = extent[0] * extent[1];
    const std::size_t planes = g.batch * g.channels;
    padded.resize(planes * padded_plane + slack);
    for_each_plane(planes, padded_plane, [&](std::size_t p) {
        pad_plane(g, image + p * g.extent[0] * g.extent[1], padded.data() + p * padded_plane);
    });
    std::fill_n(padded.data() + planes * padded_plane, slack, T{0});
}

// out [P, O] = windows [P, K] x matrix [K, O] by the direct convolution: the
// batch padded once, then an image a task. A tile that runs past an image's
// planes reads the next image's (or the slack after the last), only into
// positions it does not store.
template <Element T>
void direct_product(const WindowProductGeometry& geometry,
                    DirectConvolution<T> convolve,
                    const T* image,
                    const T* matrix,
                    T* out) {
    const WindowGeometry& g = geometry.window;
    const DirectConvolutionShape shape = direct_shape(geometry);
    thread_local std::vector<T> padded;
    pad_planes(g, image, direct_convolution_slack, padded);
    const T* planes = padded.data();
    const std::size_t padded_image = g.channels * shape.padded_rows * shape.padded_columns;
    auto convolve_image = [&](std::size_t n) {
        convolve(
            shape, planes + n * padded_image, matrix, out + n * g.outputs() * geometry.columns);
    };
    const std::size_t multiply_adds =
        g.batch * g.outputs() * g.channels * g.taps() * geometry.columns;
    if (g.batch == 1 || multiply_adds < parallel_direct_product) {
        for (std::size_t n = 0; n < g.batch; ++n) {
            convolve_image(n);
        }
        return;
    }
    ThreadPool::instance().run(g.batch, convolve_image);
}

// out [P, O] = windows [P, K] x matrix [K, O]: by the direct convolution where
// one fits, else a tile of whole lines at a time, the tile's transpose filled,
// then read transposed by the exact GEMM, whose bits do not depend on the
// layout.
template <Element T>
void forward_product(const WindowProductGeometry& geometry,
                     const T* image,
                     const T* matrix,
                     T* out) {
    const WindowGeometry& g = geometry.window;
    const std::size_t all_lines = g.batch * g.count[0];
    const std::size_t depth = g.channels * g.taps();
    if (depth == 0) {
        // Images without channels: every output is the empty sum, +0.
        std::fill_n(out, all_lines * g.count[1] * geometry.columns, T{0});
        return;
    }
    if (unit_steps(g) && geometry.direct) {
        if (const DirectConvolution<T> convolve =
                direct_convolution_kernel<T>(isa(), geometry.columns)) {
            direct_product(geometry, convolve, image, matrix, out);
            return;
        }
    }
    const std::size_t lines_per_tile = std::max<std::size_t>(1, rows_per_tile / g.count[1]);
    const auto signed_size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    auto multiply_tile = [&](std::size_t tile_index) {
        thread_local std::vector<T> tile;
        tile.resize(lines_per_tile * g.count[1] * depth);
        const std::size_t first = tile_index * lines_per_tile;
        const std::size_t lines = std::min(lines_per_tile, all_lines - first);
        const std::size_t rows = lines * g.count[1];
        fill_window_columns(g, image, first, lines, {0, g.channels}, tile.data(), rows);
        T* target = out + first * g.count[1] * geometry.columns;
        gemm<T>({1, rows, depth, geometry.columns},
                {tile.data(), 1, signed_size(rows), 0},
                {matrix, signed_size(geometry.columns), 1, 0},
                {target, signed_size(geometry.columns), 0});
    };
    const std::size_t tiles = (all_lines + lines_per_tile - 1) / lines_per_tile;
    if (tiles < 4) {
        for (std::size_t t = 0; t < tiles; ++t) {
            multiply_tile(t);
        }
        return;
    }
    ThreadPool::instance().run(tiles, multiply_tile);
}

// Lines of windows per block of the filter gradient: as many as
// `block_elements` of its windows matrix hold, whole images where more than
// one fits (each image's planes are padded once a block).
std::size_t lines_per_block(const WindowProductGeometry& geometry, std::size_t depth) {
    const WindowGeometry& g = geometry.window;
    const std::size_t lines = std::max<std::size_t>(
        1, geometry.block_elements / std::max<std::size_t>(1, depth * g.count[1]));
    return lines >= g.count[0] ? lines / g.count[0] * g.count[0] : lines;
}

// out rows of `channels` = windows^T [K_c, P] x gradient [P, O], a block of
// lines at a time: the block's windows are filled (so they stay in cache for
// the GEMM that reads them), and each block's product continues the sums of
// the blocks before it, which gives every output the one fma chain over
// ascending p of the whole product.
template <Element T>
void filter_gradient_of_channels(const WindowProductGeometry& geometry,
                                 const T* image,
                                 const T* gradient,
                                 ChannelRange channels,
                                 T* out) {
    const WindowGeometry& g = geometry.window;
    const std::size_t all_lines = g.batch * g.count[0];
    const std::size_t depth = channels.count * g.taps();
    const std::size_t block_lines = std::min(all_lines, lines_per_block(geometry, depth));
    const auto signed_size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    thread_local std::vector<T> windows;
    windows.resize(depth * block_lines * g.count[1]);
    GemmOptions options;
    options.parallel_threshold = std::numeric_limits<std::size_t>::max();
    T* target = out + channels.first * g.taps() * geometry.columns;
    for (std::size_t first = 0; first < all_lines; first += block_lines) {
        const std::size_t lines = std::min(block_lines, all_lines - first);
        const std::size_t rows = lines * g.count[1];
        fill_window_columns(g, image, first, lines, channels, windows.data(), rows);
        options.continue_sums = first > 0;
        gemm_with<T>(
            options,
            {1, depth, rows, geometry.columns},
            {windows.data(), signed_size(rows), 1, 0},
            {gradient + first * g.count[1] * geometry.columns, signed_size(geometry.columns), 1, 0},
            {target, signed_size(geometry.columns), 0});
    }
}

// out [K, O] = windows^T [K, P] x gradient [P, O] by the direct filter
// gradient: the batch padded once, then each thread its own channel lines.
template <Element T>
void direct_transposed_product(const WindowProductGeometry& geometry,
                               DirectFilterGradient<T> gradient_of,
                               std::size_t multiply_adds,
                               const T* image,
                               const T* gradient,
                               T* out) {
    const WindowGeometry& g = geometry.window;
    thread_local std::vector<T> padded;
    pad_planes(g, image, 0, padded);
    const DirectConvolutionShape shape = direct_shape(geometry);
    const std::size_t lines = g.channels * g.size[0];
    const std::size_t parts = multiply_adds < parallel_direct_product
                                  ? 1
                                  : std::min(lines, ThreadPool::instance().thread_count());
    const T* planes = padded.data();
    auto part = [&](std::size_t index) {
        const std::size_t first = index * lines / parts;
        const std::size_t end = (index + 1) * lines / parts;
        gradient_of(shape, g.batch, planes, gradient, first, end - first, out);
    };
    if (parts == 1) {
        part(0);
        return;
    }
    ThreadPool::instance().run(parts, part);
}

// out [K, O] = windows^T [K, P] x gradient [P, O] (a filter gradient): by the
// direct kernel where one fits, else the exact GEMM over blocks of windows.
// Each thread takes its own channels (lines), so no output's sum is ever
// split.
template <Element T>
void transposed_product(const WindowProductGeometry& geometry,
                        const T* image,
                        const T* gradient,
                        T* out) {
    const WindowGeometry& g = geometry.window;
    const std::size_t multiply_adds =
        g.batch * g.outputs() * g.channels * g.taps() * geometry.columns;
    if (g.batch * g.outputs() == 0) {
        // No windows: every output is the empty sum, +0.
        std::fill_n(out, g.channels * g.taps() * geometry.columns, T{0});
        return;
    }
    if (unit_steps(g) && geometry.direct) {
        if (const DirectFilterGradient<T> gradient_of =
                direct_filter_gradient_kernel<T>(isa(), direct_shape(geometry))) {
            direct_transposed_product(geometry, gradient_of, multiply_adds, image, gradient, out);
            return;
        }
    }
    const std::size_t parts = multiply_adds < parallel_filter_gradient
                                  ? 1
                                  : std::min(g.channels, ThreadPool::instance().thread_count());
    auto part = [&](std::size_t index) {
        const std::size_t first = index * g.channels / parts;
        const std::size_t end = (index + 1) * g.channels / parts;
        filter_gradient_of_channels(geometry, image, gradient, {first, end - first}, out);
    };
    if (parts == 1) {
        part(0);
        return;
    }
    ThreadPool::instance().run(parts, part);
}

Match product_match(std::uint32_t root,
                    ImageWindows windows,
                    std::uint32_t other,
                    std::size_t columns,
                    bool transposed) {
    windows.nodes.push_back(root);
    std::sort(windows.nodes.begin(), windows.nodes.end());
    const WindowGeometry& g = windows.geometry;
    WindowProductGeometry geometry{g, columns, transposed};
    return Match{
        PatternKind::WindowProduct, root, windows.nodes, {root}, {windows.image, other}, geometry};
}

std::optional<Match> match_product(const SpecView& spec, std::uint32_t root) {
    const Node* product = spec.as(root, Opcode::MatMul);
    if (product == nullptr || product->shape().rank() != 2) {
        return std::nullopt;
    }
    const std::uint32_t left = product->operands()[0];
    const std::uint32_t right = product->operands()[1];
    const std::size_t columns = product->shape()[1];
    if (std::optional<ImageWindows> windows = windows_matrix(spec, left)) {
        return product_match(root, std::move(*windows), right, columns, false);
    }
    if (is_permute(spec, left, {1, 0})) {
        if (std::optional<ImageWindows> windows = windows_matrix(spec, spec[left].operands()[0])) {
            windows->nodes.push_back(left);
            return product_match(root, std::move(*windows), right, columns, true);
        }
    }
    return std::nullopt;
}

template <Element T>
void product_kernel(const Match& match,
                    std::span<const T* const> inputs,
                    std::span<T* const> results) {
    const auto& geometry = match.geometry_as<WindowProductGeometry>();
    if (geometry.transposed) {
        transposed_product(geometry, inputs[0], inputs[1], results[0]);
    } else {
        forward_product(geometry, inputs[0], inputs[1], results[0]);
    }
}

// Forward: the [N, C, H, W] image convolved with the matrix as [C, KH, KW, O]
// filters, giving [N, OH, OW, O], the rows of the root [N*OH*OW, O].
HloValue forward_convolution(HloBuilder& build,
                             const Match& match,
                             const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    const FittedImage fitted = fitted_image(build, build.value_of(match.inputs[0]), g);
    const HloValue filters = build.reshape(build.value_of(match.inputs[1]),
                                           Shape{g.channels, g.size[0], g.size[1], w.columns});
    const ConvolutionLayout layout{
        0, 1, {2, 3}, 0, 3, {1, 2}, 0, 3, {1, 2}, g.step, g.dilation, fitted.padding};
    const HloValue convolved = build.convolution(fitted.image, filters, layout);
    return build.reshape(convolved, build.site().shape);
}

// Transposed (a filter gradient): out[c, kh, kw, o] sums image[n, c, oh*step +
// kh*dilation, ...] * G[n, oh, ow, o] over n, oh, ow, a convolution of the
// image (N as the contracted feature, C as the batch) by G as [N, OH, OW, O],
// whose window steps by the dilation and whose kernel is dilated by the step.
HloValue filter_gradient(HloBuilder& build, const Match& match, const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    const FittedImage fitted = fitted_image(build, build.value_of(match.inputs[0]), g);
    const HloValue gradient = build.reshape(build.value_of(match.inputs[1]),
                                            Shape{g.batch, g.count[0], g.count[1], w.columns});
    const ConvolutionLayout layout{
        1, 0, {2, 3}, 0, 3, {1, 2}, 0, 3, {1, 2}, g.dilation, g.step, fitted.padding};
    const HloValue convolved = build.convolution(fitted.image, gradient, layout);
    return build.reshape(convolved, build.site().shape);
}

// A stablehlo.convolution; its transposed form, a filter gradient, a
// convolution of the image by the gradient.
std::vector<HloValue> raise_convolution(HloBuilder& build,
                                        const Match& match,
                                        const RaiseContext&) {
    const auto& w = match.geometry_as<WindowProductGeometry>();
    return {w.transposed ? filter_gradient(build, match, w) : forward_convolution(build, match, w)};
}

}  // namespace

PatternRow window_product_row() {
    return {.kind = PatternKind::WindowProduct,
            .match = match_product,
            .kernel_f32 = product_kernel<float>,
            .kernel_f64 = product_kernel<double>,
            .raises = raises_every_match,
            .raise = raise_convolution,
            .splits_the_pool = true};
}

}  // namespace topos::detail
