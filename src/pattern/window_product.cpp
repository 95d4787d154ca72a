// WindowProduct: the windows matrix of an image times a matrix, read from the
// image. Two forms are matched:
//   forward:    MatMul(Reshape(Permute(windows)), M)   [N*OH*OW, C*KH*KW] x [C*KH*KW, O]
//   transposed: MatMul(Permute(Reshape(...)), G)       [C*KH*KW, N*OH*OW] x [N*OH*OW, O]
// (the second is a convolution's filter gradient). The forward builds window
// rows a tile at a time; the transposed form sums over every window row, so it
// builds the whole windows matrix when that is not too large. Both accumulate
// every output over ascending depth with one fma each, from +0, as MatMul does.
#include "pattern/window_product.hpp"

#include "kernels/gemm.hpp"
#include "ops/common.hpp"
#include "pattern/catalog.hpp"
#include "pattern/fitted_windows.hpp"
#include "pattern/window_taps.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
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

// Rows of the windows matrix, built straight from the image: row (n, oh, ow)
// holds the taps (c, kh, kw) in that order, zero where they fall in padding.
template <Element T>
class Patches {
public:
    Patches(const WindowGeometry& g, const T* image) : g_(g), image_(image) {}

    std::size_t depth() const { return g_.channels * g_.taps(); }

    // Writes rows first .. first + count - 1 (all of one (n, oh) line) to `out`.
    void line(std::size_t first, std::size_t count, T* out) const {
        const std::size_t n = first / g_.outputs();
        const std::size_t oh = first / g_.count[1] % g_.count[0];
        const std::size_t ow_first = first % g_.count[1];
        for (std::size_t c = 0; c < g_.channels; ++c) {
            const T* plane = image_ + (n * g_.channels + c) * g_.extent[0] * g_.extent[1];
            for (std::size_t kh = 0; kh < g_.size[0]; ++kh) {
                const std::size_t y = oh * g_.step[0] + kh * g_.dilation[0];
                const bool inside = y >= g_.pad_before[0] && y - g_.pad_before[0] < g_.extent[0];
                const T* source = inside ? plane + (y - g_.pad_before[0]) * g_.extent[1] : nullptr;
                T* taps = out + (c * g_.size[0] + kh) * g_.size[1];
                for (std::size_t r = 0; r < count; ++r) {
                    write_taps(source, ow_first + r, taps + r * depth());
                }
            }
        }
    }

private:
    // The KW taps of one kernel row for output column `ow`; `source` is the
    // image row, or null when the kernel row lies in padding.
    void write_taps(const T* source, std::size_t ow, T* taps) const {
        const std::size_t x = ow * g_.step[1];
        const std::size_t last = x + (g_.size[1] - 1) * g_.dilation[1];
        if (source != nullptr && x >= g_.pad_before[1] && last - g_.pad_before[1] < g_.extent[1]) {
            const T* first = source + (x - g_.pad_before[1]);
            for (std::size_t kw = 0; kw < g_.size[1]; ++kw) {
                taps[kw] = first[kw * g_.dilation[1]];
            }
            return;
        }
        for (std::size_t kw = 0; kw < g_.size[1]; ++kw) {
            const std::size_t at = x + kw * g_.dilation[1];
            const bool inside =
                source != nullptr && at >= g_.pad_before[1] && at - g_.pad_before[1] < g_.extent[1];
            taps[kw] = inside ? source[at - g_.pad_before[1]] : T{0};
        }
    }

    const WindowGeometry& g_;
    const T* image_;
};

// Window rows per tile of the forward product, rounded to whole lines.
constexpr std::size_t rows_per_tile = 256;

// The windows matrix's transpose [K, P] for the P = lines * OW windows of
// lines first .. first + lines - 1 (a line is one (n, oh)), into `columns`
// whose rows are `stride` apart: row (c, kh, kw) holds that tap of every
// window, so each line of it is a strided run of one image row. Windows that
// step and dilate by 1 read runs of each plane's padded copy instead.
template <Element T>
void fill_window_columns(const WindowGeometry& g,
                         const T* image,
                         std::size_t first,
                         std::size_t lines,
                         T* columns,
                         std::size_t stride) {
    const std::size_t plane = g.extent[0] * g.extent[1];
    if (!unit_steps(g)) {
        for (std::size_t line = first; line < first + lines; ++line) {
            const std::size_t n = line / g.count[0];
            const std::size_t oh = line % g.count[0];
            T* at = columns + (line - first) * g.count[1];
            for (std::size_t c = 0; c < g.channels; ++c) {
                gather_window_row(g,
                                  image + (n * g.channels + c) * plane,
                                  oh,
                                  at + c * g.taps() * stride,
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
        for (std::size_t c = 0; c < g.channels; ++c) {
            pad_plane(g, image + (n * g.channels + c) * plane, padded.data());
            gather_unit_step_rows(g, padded.data(), oh, count, at + c * g.taps() * stride, stride);
        }
        line += count;
    }
}

// out [P, O] = windows [P, K] x matrix [K, O], a tile of whole lines at a
// time: the tile's transpose is filled, then read transposed by the exact
// GEMM, whose bits do not depend on the layout.
template <Element T>
void forward_product(const WindowProductGeometry& geometry,
                     const T* image,
                     const T* matrix,
                     T* out) {
    const WindowGeometry& g = geometry.window;
    const std::size_t all_lines = g.batch * g.count[0];
    const std::size_t depth = g.channels * g.taps();
    const std::size_t lines_per_tile = std::max<std::size_t>(1, rows_per_tile / g.count[1]);
    const auto signed_size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    auto multiply_tile = [&](std::size_t tile_index) {
        thread_local std::vector<T> tile;
        tile.resize(lines_per_tile * g.count[1] * depth);
        const std::size_t first = tile_index * lines_per_tile;
        const std::size_t lines = std::min(lines_per_tile, all_lines - first);
        const std::size_t rows = lines * g.count[1];
        fill_window_columns(g, image, first, lines, tile.data(), rows);
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

// out [K, O] += window [K] (outer) gradient row [O]: every output gains one
// fma, so each keeps summing over ascending rows.
template <Element T>
void add_outer_product(
    const T* window, const T* gradient_row, T* out, std::size_t depth, std::size_t columns) {
    for (std::size_t k = 0; k < depth; ++k) {
        T* out_row = out + k * columns;
        const T scale = window[k];
        for (std::size_t o = 0; o < columns; ++o) {
            out_row[o] = std::fma(scale, gradient_row[o], out_row[o]);
        }
    }
}

#if defined(TOPOS_HAS_AVX2_LOOPS)
template <Element T>
TOPOS_AVX2_FMA_LOOP void add_outer_product_avx2_fma(
    const T* window, const T* gradient_row, T* out, std::size_t depth, std::size_t columns) {
    add_outer_product(window, gradient_row, out, depth, columns);
}
#endif

// out [K, O] = windows^T [K, P] x gradient [P, O], rank-one updates per row p,
// so every output still sums over ascending p.
template <Element T>
void transposed_product_by_rows(const WindowProductGeometry& geometry,
                                const T* image,
                                const T* gradient,
                                T* out) {
    const WindowGeometry& g = geometry.window;
    const std::size_t rows = g.batch * g.outputs();
    const std::size_t depth = g.channels * g.taps();
    const std::size_t columns = geometry.columns;
    const Patches<T> patches(g, image);
    thread_local std::vector<T> row;
    row.resize(depth);
    std::fill(out, out + depth * columns, T{0});
#if defined(TOPOS_HAS_AVX2_LOOPS)
    const bool vector_loop = runs_avx2_fma();
#endif
    for (std::size_t p = 0; p < rows; ++p) {
        patches.line(p, 1, row.data());
        const T* g_row = gradient + p * columns;
#if defined(TOPOS_HAS_AVX2_LOOPS)
        if (vector_loop) {
            add_outer_product_avx2_fma(row.data(), g_row, out, depth, columns);
            continue;
        }
#endif
        add_outer_product(row.data(), g_row, out, depth, columns);
    }
}

// The same product by the exact GEMM, which sums over p in the same order,
// from the windows matrix's transpose [K, P], materialised.
template <Element T>
void transposed_product(const WindowProductGeometry& geometry,
                        const T* image,
                        const T* gradient,
                        T* out) {
    const WindowGeometry& g = geometry.window;
    const std::size_t rows = g.batch * g.outputs();
    const std::size_t depth = g.channels * g.taps();
    if (!geometry.materialise_windows) {
        transposed_product_by_rows(geometry, image, gradient, out);
        return;
    }
    thread_local std::vector<T> windows;
    windows.resize(depth * rows);
    // Lines of the transpose are filled apart, so they are shared among threads.
    T* columns = windows.data();
    for_each_range(
        g.batch * g.count[0], g.count[1] * depth, [&](std::size_t first, std::size_t end) {
            fill_window_columns(g, image, first, end - first, columns + first * g.count[1], rows);
        });
    multiply_matrices(columns, gradient, out, depth, rows, geometry.columns);
}

Match product_match(std::uint32_t root,
                    ImageWindows windows,
                    std::uint32_t other,
                    std::size_t columns,
                    bool transposed) {
    windows.nodes.push_back(root);
    std::sort(windows.nodes.begin(), windows.nodes.end());
    const WindowGeometry& g = windows.geometry;
    const bool fits = g.batch * g.outputs() * g.channels * g.taps() <= largest_windows_matrix;
    WindowProductGeometry geometry{g, columns, transposed, fits};
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

bool always(const Match&, const RaiseContext&) {
    return true;
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
            .raises = always,
            .raise = raise_convolution};
}

}  // namespace topos::detail
