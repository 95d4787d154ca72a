// The direct convolution's register tile, one template for every vector
// width. Output positions are numbered q = oh * padded_columns + ow over the
// padded plane's width, so tap (c, kh, kw) of every position in a tile is one
// run of the plane: q + c * plane + kh * padded_columns + kw. Positions with
// ow >= OW are computed with the rest and never stored. An includer compiles
// it for its instruction set, between a target push and pop, after its lanes
// (direct_convolution_avx2.cpp).
#pragma once

#if defined(__x86_64__)

#include "kernels/direct_convolution.hpp"
#include "kernels/micro_kernel_x86.hpp"

#include <algorithm>
#include <cstddef>

namespace topos::detail {
namespace {  // each includer has its own copy, compiled for its instruction set

// Positions [first, first + Rows) of filters [filter, filter + Vectors *
// width): Rows x Vectors accumulators, each lane one output's fma chain over
// ascending taps.
template <VectorLanes Lanes, std::size_t Rows, std::size_t Vectors>
void direct_tile(const DirectConvolutionShape& s,
                 const typename Lanes::Element* padded,
                 const typename Lanes::Element* matrix,
                 std::size_t filter,
                 std::size_t first,
                 typename Lanes::Element* out) {
    using Vector = typename Lanes::Vector;
    constexpr std::size_t rows = Rows;
    constexpr std::size_t vectors = Vectors;
    constexpr std::size_t width = Lanes::width;
    const std::size_t plane = s.padded_rows * s.padded_columns;
    Vector sum[rows][vectors];
#pragma GCC unroll 24
    for (std::size_t r = 0; r < rows; ++r) {
#pragma GCC unroll 2
        for (std::size_t v = 0; v < vectors; ++v) {
            sum[r][v] = Lanes::zero();
        }
    }
    const typename Lanes::Element* weights = matrix + filter;
    for (std::size_t c = 0; c < s.channels; ++c) {
        for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
            const typename Lanes::Element* run = padded + c * plane + kh * s.padded_columns + first;
            for (std::size_t kw = 0; kw < s.kernel_columns; ++kw) {
                // Opaque to the optimiser: otherwise GCC carries tap r + 1 of
                // this kw over as tap r of the next in scalar registers, which
                // spills 24 of them; broadcasts from memory are cheaper.
                const typename Lanes::Element* taps = run + kw;
                asm("" : "+r"(taps));
                Vector tap_filters[vectors];
#pragma GCC unroll 2
                for (std::size_t v = 0; v < vectors; ++v) {
                    tap_filters[v] = Lanes::load(weights + v * width);
                }
#pragma GCC unroll 24
                for (std::size_t r = 0; r < rows; ++r) {
                    const Vector tap = Lanes::splat(taps + r);
#pragma GCC unroll 2
                    for (std::size_t v = 0; v < vectors; ++v) {
                        sum[r][v] = Lanes::fma(tap, tap_filters[v], sum[r][v]);
                    }
                }
                weights += s.filters;
            }
        }
    }
    std::size_t oh = first / s.padded_columns;
    std::size_t ow = first % s.padded_columns;
#pragma GCC unroll 24
    for (std::size_t r = 0; r < rows; ++r) {
        if (ow < s.columns && oh < s.rows) {
            typename Lanes::Element* at = out + (oh * s.columns + ow) * s.filters + filter;
#pragma GCC unroll 2
            for (std::size_t v = 0; v < vectors; ++v) {
                Lanes::store(at + v * width, sum[r][v]);
            }
        }
        if (++ow == s.padded_columns) {
            ow = 0;
            ++oh;
        }
    }
}

// A whole image, tile by tile; s.filters is a multiple of Vectors * width.
template <VectorLanes Lanes, std::size_t Rows, std::size_t Vectors>
void direct_convolution(const DirectConvolutionShape& s,
                        const typename Lanes::Element* padded,
                        const typename Lanes::Element* matrix,
                        typename Lanes::Element* out) {
    const std::size_t end = (s.rows - 1) * s.padded_columns + s.columns;
    for (std::size_t first = 0; first < end; first += Rows) {
        for (std::size_t filter = 0; filter < s.filters; filter += Vectors * Lanes::width) {
            direct_tile<Lanes, Rows, Vectors>(s, padded, matrix, filter, first, out);
        }
    }
}

// The tile for `filters`: two vectors across where they divide it evenly
// (WideRows positions), else one (NarrowRows), else none.
template <VectorLanes Lanes, std::size_t WideRows, std::size_t NarrowRows>
DirectConvolution<typename Lanes::Element> direct_convolution_for(std::size_t filters) {
    static_assert(NarrowRows <= direct_convolution_slack + 1);
    if (filters == 0 || filters % Lanes::width != 0) {
        return nullptr;
    }
    if (filters % (2 * Lanes::width) == 0) {
        return direct_convolution<Lanes, WideRows, 2>;
    }
    return direct_convolution<Lanes, NarrowRows, 1>;
}

// The windows' columns whose gradients a tile of taps computes: KW (3) taps
// of each of `Lines` channel lines.
inline constexpr std::size_t gradient_tap_columns = 3;

// Rows (c, kh, kw) of lines [first_line, first_line + Lines) and filters
// [filter, filter + Vectors * width): Lines * 3 x Vectors accumulators, each
// lane one output's fma chain over the windows in ascending order.
template <VectorLanes Lanes, std::size_t Lines, std::size_t Vectors>
void direct_gradient_tile(const DirectConvolutionShape& s,
                          std::size_t batch,
                          const typename Lanes::Element* padded,
                          const typename Lanes::Element* gradient,
                          std::size_t first_line,
                          std::size_t filter,
                          typename Lanes::Element* out) {
    using Element = typename Lanes::Element;
    using Vector = typename Lanes::Vector;
    constexpr std::size_t lines = Lines;
    constexpr std::size_t taps = gradient_tap_columns;
    constexpr std::size_t vectors = Vectors;
    constexpr std::size_t width = Lanes::width;
    const std::size_t plane = s.padded_rows * s.padded_columns;
    const std::size_t image = s.channels * plane;
    Vector sum[lines * taps][vectors];
#pragma GCC unroll 12
    for (std::size_t r = 0; r < lines * taps; ++r) {
#pragma GCC unroll 2
        for (std::size_t v = 0; v < vectors; ++v) {
            sum[r][v] = Lanes::zero();
        }
    }
    std::size_t line_offset[lines];
#pragma GCC unroll 4
    for (std::size_t l = 0; l < lines; ++l) {
        const std::size_t line = first_line + l;
        line_offset[l] = line / s.kernel_rows * plane + line % s.kernel_rows * s.padded_columns;
    }
    const Element* row_of_gradient = gradient + filter;
    for (std::size_t n = 0; n < batch; ++n) {
        for (std::size_t oh = 0; oh < s.rows; ++oh) {
            const Element* window_row = padded + n * image + oh * s.padded_columns;
            for (std::size_t ow = 0; ow < s.columns; ++ow) {
                Vector g[vectors];
#pragma GCC unroll 2
                for (std::size_t v = 0; v < vectors; ++v) {
                    g[v] = Lanes::load(row_of_gradient + v * width);
                }
                row_of_gradient += s.filters;
#pragma GCC unroll 4
                for (std::size_t l = 0; l < lines; ++l) {
                    const Element* x = window_row + line_offset[l] + ow;
#pragma GCC unroll 3
                    for (std::size_t kw = 0; kw < taps; ++kw) {
                        const Vector tap = Lanes::splat(x + kw);
#pragma GCC unroll 2
                        for (std::size_t v = 0; v < vectors; ++v) {
                            sum[l * taps + kw][v] = Lanes::fma(tap, g[v], sum[l * taps + kw][v]);
                        }
                    }
                }
            }
        }
    }
#pragma GCC unroll 12
    for (std::size_t r = 0; r < lines * taps; ++r) {
        Element* at = out + (first_line * taps + r) * s.filters + filter;
#pragma GCC unroll 2
        for (std::size_t v = 0; v < vectors; ++v) {
            Lanes::store(at + v * width, sum[r][v]);
        }
    }
}

// Lines [first_line, first_line + lines) in tiles of MostLines lines (the
// last tile shorter), each tile over every filter.
template <VectorLanes Lanes, std::size_t MostLines, std::size_t Vectors>
void direct_filter_gradient(const DirectConvolutionShape& s,
                            std::size_t batch,
                            const typename Lanes::Element* padded,
                            const typename Lanes::Element* gradient,
                            std::size_t first_line,
                            std::size_t lines,
                            typename Lanes::Element* out) {
    static_assert(MostLines >= 1 && MostLines <= 4);
    const std::size_t end = first_line + lines;
    for (std::size_t filter = 0; filter < s.filters; filter += Vectors * Lanes::width) {
        for (std::size_t line = first_line; line < end; line += MostLines) {
            const auto tile = [&]<std::size_t Lines>() {
                direct_gradient_tile<Lanes, Lines, Vectors>(
                    s, batch, padded, gradient, line, filter, out);
            };
            switch (std::min(MostLines, end - line)) {
                case 1:
                    tile.template operator()<1>();
                    break;
                case 2:
                    if constexpr (MostLines >= 2) {
                        tile.template operator()<2>();
                    }
                    break;
                case 3:
                    if constexpr (MostLines >= 3) {
                        tile.template operator()<3>();
                    }
                    break;
                default:
                    if constexpr (MostLines >= 4) {
                        tile.template operator()<4>();
                    }
                    break;
            }
        }
    }
}

// The filter gradient's tile for `shape`: windows 3 taps wide, filters of
// whole vectors; two vectors across (WideLines lines) where they divide the
// filters evenly, else one (NarrowLines).
template <VectorLanes Lanes, std::size_t WideLines, std::size_t NarrowLines>
DirectFilterGradient<typename Lanes::Element> direct_filter_gradient_for(
    const DirectConvolutionShape& shape) {
    if (shape.kernel_columns != gradient_tap_columns || shape.filters == 0 ||
        shape.filters % Lanes::width != 0) {
        return nullptr;
    }
    if (shape.filters % (2 * Lanes::width) == 0) {
        return direct_filter_gradient<Lanes, WideLines, 2>;
    }
    return direct_filter_gradient<Lanes, NarrowLines, 1>;
}

}  // namespace
}  // namespace topos::detail

#endif
