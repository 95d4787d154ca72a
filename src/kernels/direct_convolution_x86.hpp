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

}  // namespace
}  // namespace topos::detail

#endif
