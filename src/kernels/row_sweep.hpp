// The row sweep: the exact product of a few rows of A with a row-major B read
// once, straight from where it lies, without packing. A matrix-vector product
// (a decoding step's projection: one token's row times a weight matrix) reads
// each weight once either way; packing B first, as the tiled GEMM does, would
// read it, write a copy and read that again. Every output element starts at +0
// (or at the partial sum stored in C) and takes its k terms in ascending order
// with one fma each, so its bits are the GEMM's and the reference loop's.
#pragma once

#include <topos/core/bf16.hpp>
#include <topos/core/isa.hpp>
#include <topos/core/tensor.hpp>

#include <cmath>
#include <cstddef>

namespace topos::detail {

// rows (at most row_sweep_rows) of A times B [depth, columns], B's columns
// contiguous, into C. B may be bf16 under a float product: each element is
// widened exactly as it is read.
template <Element T, Element B = T>
struct SweepOperands {
    const T* a;
    std::ptrdiff_t a_row_stride;
    std::ptrdiff_t a_column_stride;
    std::size_t rows;
    const B* b;
    std::ptrdiff_t b_row_stride;
    std::size_t depth;
    T* c;
    std::ptrdiff_t c_row_stride;
    bool continues;  // C holds the sums of earlier terms
};

// The most rows of A a sweep takes: a few rows share each load of B, beyond
// that the tiled GEMM's packing pays for itself.
inline constexpr std::size_t row_sweep_rows = 4;

// Computes the columns [first, first + count) of C.
template <Element T, Element B = T>
using SweepFunction = void (*)(const SweepOperands<T, B>& operands,
                               std::size_t first,
                               std::size_t count);

// The sweep of `isa`'s vectors.
template <Element T>
SweepFunction<T> row_sweep_for(Isa isa);

template <Element T>
void portable_row_sweep(const SweepOperands<T>& operands, std::size_t first, std::size_t count);

// The float sweep over a bf16 B, by instruction set.
SweepFunction<float, bf16> widening_row_sweep_for(Isa isa);

// The unit of columns a sweep's parts are cut in, by the type of its sums:
// 512 bytes of them, half the AVX-512 sweep's widest block in float and
// double (sweep_rows has that half), four of the AVX-512 bf16 pair loads, two
// blocks of the AVX2 sweep.
template <Element T>
inline constexpr std::size_t sweep_part_columns = 512 / sizeof(T);

#if defined(__x86_64__)
template <Element T>
void avx2_row_sweep(const SweepOperands<T>& operands, std::size_t first, std::size_t count);

template <Element T>
void avx512_row_sweep(const SweepOperands<T>& operands, std::size_t first, std::size_t count);

void avx2_widening_row_sweep(const SweepOperands<float, bf16>& operands,
                             std::size_t first,
                             std::size_t count);

void avx512_widening_row_sweep(const SweepOperands<float, bf16>& operands,
                               std::size_t first,
                               std::size_t count);
#endif

// Columns [first, first + count) of C, one element at a time: the sweeps'
// ragged edge, and the portable sweep.
template <Element T, Element B>
void sweep_columns_one_by_one(const SweepOperands<T, B>& o, std::size_t first, std::size_t count) {
    for (std::size_t r = 0; r < o.rows; ++r) {
        const T* a_row = o.a + static_cast<std::ptrdiff_t>(r) * o.a_row_stride;
        T* c_row = o.c + static_cast<std::ptrdiff_t>(r) * o.c_row_stride;
        for (std::size_t j = first; j < first + count; ++j) {
            T sum = o.continues ? c_row[j] : T{0};
            const B* b = o.b + j;
            for (std::size_t p = 0; p < o.depth; ++p) {
                sum = std::fma(a_row[static_cast<std::ptrdiff_t>(p) * o.a_column_stride],
                               static_cast<T>(b[static_cast<std::ptrdiff_t>(p) * o.b_row_stride]),
                               sum);
            }
            c_row[j] = sum;
        }
    }
}

}  // namespace topos::detail
