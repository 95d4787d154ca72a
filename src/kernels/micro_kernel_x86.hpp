// The x86 register-tile micro-kernel, one template for every vector width: a
// Rows x (Vectors * width) tile of C held in Rows * Vectors vector accumulators,
// each lane one output element that starts at +0 (or at the partial sum stored
// in C) and takes its k terms in ascending order with one vector fma (one
// rounding, as std::fma). `Lanes` supplies the vector type and its operations.
// An includer compiles it for its instruction set: it includes this header's
// includes first, then this header between a target push and pop (gemm_avx2.cpp).
#pragma once

#if defined(__x86_64__)

#include "kernels/micro_kernel.hpp"
#include <topos/core/tensor.hpp>

#include <concepts>
#include <cstddef>
#include <immintrin.h>

namespace topos::detail {

// A vector register of `width` elements: zero(), load(p) and store(p, v)
// (unaligned), splat(p) (every lane *p), and fma(a, b, c) (a * b + c per lane,
// rounded once).
template <class Lanes>
concept VectorLanes = Element<typename Lanes::Element> &&
    requires(const typename Lanes::Element* from,
             typename Lanes::Element* to,
             typename Lanes::Vector v) {
    { Lanes::width } -> std::convertible_to<std::size_t>;
    { Lanes::zero() } -> std::same_as<typename Lanes::Vector>;
    { Lanes::load(from) } -> std::same_as<typename Lanes::Vector>;
    { Lanes::splat(from) } -> std::same_as<typename Lanes::Vector>;
    { Lanes::fma(v, v, v) } -> std::same_as<typename Lanes::Vector>;
    Lanes::store(to, v);
};

namespace {  // each includer has its own copy, compiled for its instruction set

// One tile, a TileFunction: per k step the A panel holds Rows elements, the B
// panel Vectors * width.
template <VectorLanes Lanes, std::size_t Rows, std::size_t Vectors>
void register_tile(std::size_t depth,
                   const typename Lanes::Element* a,
                   const typename Lanes::Element* b,
                   typename Lanes::Element* c,
                   std::size_t c_row_stride,
                   bool accumulate) {
    using Vector = typename Lanes::Vector;
    // Local constants, not the parameters, in the loops: so GCC 12 emits the
    // very instructions of the kernels this template replaced.
    constexpr std::size_t rows = Rows;
    constexpr std::size_t vectors = Vectors;
    constexpr std::size_t width = Lanes::width;
    Vector sum[rows][vectors];
#pragma GCC unroll 16
    for (std::size_t r = 0; r < rows; ++r) {
        _mm_prefetch(reinterpret_cast<const char*>(c + r * c_row_stride), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(c + r * c_row_stride + vectors * width - 1),
                     _MM_HINT_T0);
    }
#pragma GCC unroll 16
    for (std::size_t r = 0; r < rows; ++r) {
#pragma GCC unroll 4
        for (std::size_t v = 0; v < vectors; ++v) {
            sum[r][v] = accumulate ? Lanes::load(c + r * c_row_stride + v * width) : Lanes::zero();
        }
    }
#pragma GCC unroll 4
    for (std::size_t p = 0; p < depth; ++p) {
        Vector b_row[vectors];
#pragma GCC unroll 4
        for (std::size_t v = 0; v < vectors; ++v) {
            b_row[v] = Lanes::load(b + v * width);
        }
#pragma GCC unroll 16
        for (std::size_t r = 0; r < rows; ++r) {
            const Vector a_element = Lanes::splat(a + r);
#pragma GCC unroll 4
            for (std::size_t v = 0; v < vectors; ++v) {
                sum[r][v] = Lanes::fma(a_element, b_row[v], sum[r][v]);
            }
        }
        a += rows;
        b += vectors * width;
    }
#pragma GCC unroll 16
    for (std::size_t r = 0; r < rows; ++r) {
#pragma GCC unroll 4
        for (std::size_t v = 0; v < vectors; ++v) {
            Lanes::store(c + r * c_row_stride + v * width, sum[r][v]);
        }
    }
}

// The micro-kernel of a Rows x (Vectors * width) register tile, with the
// blocking every x86 tile uses: k blocks of 256; 120 rows and 4,096 columns
// of float per block, 96 and 2,048 of double.
template <VectorLanes Lanes, std::size_t Rows, std::size_t Vectors>
MicroKernel<typename Lanes::Element> tile_kernel() {
    constexpr bool single = sizeof(typename Lanes::Element) == 4;
    return {register_tile<Lanes, Rows, Vectors>,
            Rows,
            Vectors * Lanes::width,
            256,
            single ? 120 : 96,
            single ? 4096 : 2048};
}

}  // namespace
}  // namespace topos::detail

#endif
