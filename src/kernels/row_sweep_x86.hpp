// The x86 row sweep, one template for every vector width: Rows rows of C,
// Vectors vectors across, held in Rows * Vectors accumulators while the k
// rows of B stream past; each B vector is loaded once and serves every row.
// An includer compiles it for its instruction set between a target push and
// pop, after its includes (gemm_avx512.cpp), as micro_kernel_x86.hpp.
#pragma once

#if defined(__x86_64__)

#include "kernels/micro_kernel_x86.hpp"
#include "kernels/row_sweep.hpp"

#include <cstddef>
#include <immintrin.h>

namespace topos::detail {
namespace {  // each includer has its own copy, compiled for its instruction set

// How far ahead, in k rows, the sweep asks for B's lines.
constexpr std::size_t sweep_prefetch_distance = 8;

// Asks for the lines of B's row sweep_prefetch_distance rows below `b_row`
// that hold its `Elements` columns from there.
template <class B, std::size_t Elements>
[[gnu::always_inline]] inline void prefetch_row_ahead(const B* b_row, std::ptrdiff_t b_row_stride) {
    constexpr std::size_t line = 64 / sizeof(B);
    const B* ahead = b_row + static_cast<std::ptrdiff_t>(sweep_prefetch_distance) * b_row_stride;
#pragma GCC unroll 16
    for (std::size_t l = 0; l < Elements; l += line) {
        _mm_prefetch(reinterpret_cast<const char*>(ahead + l), _MM_HINT_T0);
    }
}

// B's vectors as Lanes loads them: B holds the product's own element type.
template <VectorLanes Lanes>
struct OwnElements {
    using Element = typename Lanes::Element;

    [[gnu::always_inline]] static inline typename Lanes::Vector load(const Element* p) {
        return Lanes::load(p);
    }
};

// Columns [column, column + Vectors * width) of Rows rows of C; `Loads` reads
// B's vectors (widening bf16 ones).
template <VectorLanes Lanes, class Loads, std::size_t Rows, std::size_t Vectors>
void sweep_block(const SweepOperands<typename Lanes::Element, typename Loads::Element>& o,
                 std::size_t column) {
    using E = typename Lanes::Element;
    using B = typename Loads::Element;
    using Vector = typename Lanes::Vector;
    constexpr std::size_t width = Lanes::width;
    Vector sum[Rows][Vectors];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < Rows; ++r) {
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) {
            E* c = o.c + static_cast<std::ptrdiff_t>(r) * o.c_row_stride + column + v * width;
            sum[r][v] = o.continues ? Lanes::load(c) : Lanes::zero();
        }
    }
    const B* b = o.b + column;
    for (std::size_t p = 0; p < o.depth; ++p) {
        const B* b_row = b + static_cast<std::ptrdiff_t>(p) * o.b_row_stride;
        prefetch_row_ahead<B, Vectors * width>(b_row, o.b_row_stride);
        Vector b_vector[Vectors];
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) {
            b_vector[v] = Loads::load(b_row + v * width);
        }
#pragma GCC unroll 4
        for (std::size_t r = 0; r < Rows; ++r) {
            const Vector a = Lanes::splat(o.a + static_cast<std::ptrdiff_t>(r) * o.a_row_stride +
                                          static_cast<std::ptrdiff_t>(p) * o.a_column_stride);
#pragma GCC unroll 16
            for (std::size_t v = 0; v < Vectors; ++v) {
                sum[r][v] = Lanes::fma(a, b_vector[v], sum[r][v]);
            }
        }
    }
#pragma GCC unroll 4
    for (std::size_t r = 0; r < Rows; ++r) {
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Vectors; ++v) {
            Lanes::store(o.c + static_cast<std::ptrdiff_t>(r) * o.c_row_stride + column + v * width,
                         sum[r][v]);
        }
    }
}

// Columns [first, first + count): wide blocks, then a half and a quarter of
// one (a thread's part of the columns may end anywhere on a part unit), then
// single vectors, then the ragged edge one element at a time.
template <VectorLanes Lanes, class Loads, std::size_t Rows, std::size_t Vectors>
void sweep_rows(const SweepOperands<typename Lanes::Element, typename Loads::Element>& o,
                std::size_t first,
                std::size_t count) {
    constexpr std::size_t width = Lanes::width;
    std::size_t column = first;
    const std::size_t end = first + count;
    for (; column + Vectors * width <= end; column += Vectors * width) {
        sweep_block<Lanes, Loads, Rows, Vectors>(o, column);
    }
    if constexpr (Vectors >= 4) {
        if (column + Vectors / 2 * width <= end) {
            sweep_block<Lanes, Loads, Rows, Vectors / 2>(o, column);
            column += Vectors / 2 * width;
        }
        if (column + Vectors / 4 * width <= end) {
            sweep_block<Lanes, Loads, Rows, Vectors / 4>(o, column);
            column += Vectors / 4 * width;
        }
    }
    for (; column + width <= end; column += width) {
        sweep_block<Lanes, Loads, Rows, 1>(o, column);
    }
    sweep_columns_one_by_one(o, column, end - column);
}

// The sweep over `Accumulators` vector registers: as many vectors across as
// the rows leave room for. One row needs no register for B's vectors (each
// is loaded into its fma), so it takes them all: the wider each row's run of
// B, the fewer strides between B's rows and the closer a single thread comes
// to the memory's bandwidth (a matrix-vector product is bound by it).
template <VectorLanes Lanes, std::size_t Accumulators, class Loads = OwnElements<Lanes>>
void sweep(const SweepOperands<typename Lanes::Element, typename Loads::Element>& o,
           std::size_t first,
           std::size_t count) {
    switch (o.rows) {
        case 1:
            sweep_rows<Lanes, Loads, 1, Accumulators>(o, first, count);
            return;
        case 2:
            sweep_rows<Lanes, Loads, 2, Accumulators / 2>(o, first, count);
            return;
        case 3:
            sweep_rows<Lanes, Loads, 3, Accumulators / 4>(o, first, count);
            return;
        default:
            sweep_rows<Lanes, Loads, 4, Accumulators / 4>(o, first, count);
            return;
    }
}

}  // namespace
}  // namespace topos::detail

#endif
