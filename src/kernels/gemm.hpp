// The exact matrix product: C = A B for each of `batches` matrix triples, on
// strided views (a transpose is a swap of strides, a shared operand a batch
// stride of 0, so callers pass views and nothing is copied beforehand). Each
// output element starts at +0 and accumulates its k terms in ascending order
// with one fma each -- the MatMul reference order -- so the bits equal the
// reference loop's for every size, layout, micro-kernel and thread count. The
// kernel is register- and cache-blocked (packed panels, k blocks continued from
// the stored partial sums) and splits independent output tiles, never k, over
// the library's thread pool when a product is large enough (GemmOptions).
#pragma once

#include <topos/core/isa.hpp>
#include <topos/core/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace topos::detail {

struct GemmExtents {
    std::size_t batches;
    std::size_t rows;     // m: rows of A and C
    std::size_t depth;    // k: columns of A, rows of B
    std::size_t columns;  // n: columns of B and C
};

// A read-only operand: element (b, i, j) is at
// data[b * batch_stride + i * row_stride + j * column_stride].
template <Element T>
struct MatrixView {
    const T* data;
    std::ptrdiff_t row_stride;
    std::ptrdiff_t column_stride;
    std::ptrdiff_t batch_stride;
};

// The result: element (b, i, j) is at data[b * batch_stride + i * row_stride + j].
// It must not overlap either operand.
template <Element T>
struct MatrixTarget {
    T* data;
    std::ptrdiff_t row_stride;
    std::ptrdiff_t batch_stride;
};

// The batched product of the MatMul opcode: contiguous row-major a [...,
// rows, depth] times b [..., depth, columns] into out [..., rows, columns],
// one matrix per index of the leading axes (equal on both sides).
template <Element T>
struct RowMajorProduct {
    GemmExtents extents;
    MatrixView<T> a;
    MatrixView<T> b;
    MatrixTarget<T> c;
};

template <Element T>
RowMajorProduct<T> row_major_product(
    const T* a, const Shape& a_shape, const T* b, const Shape& b_shape, T* out) {
    const std::size_t r = a_shape.rank();
    const std::size_t rows = a_shape[r - 2];
    const std::size_t depth = a_shape[r - 1];
    const std::size_t columns = b_shape[r - 1];
    std::size_t batches = 1;
    for (std::size_t axis = 0; axis + 2 < r; ++axis) {
        batches *= a_shape[axis];
    }
    const auto signed_size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    return {{batches, rows, depth, columns},
            {a, signed_size(depth), 1, signed_size(rows * depth)},
            {b, signed_size(columns), 1, signed_size(depth * columns)},
            {out, signed_size(columns), signed_size(rows * columns)}};
}

// How gemm_with runs a product; the defaults are what gemm() uses.
struct GemmOptions {
    // The micro-kernel's instruction set, one of supported_isas(); by default
    // topos::isa() when the options are made.
    Isa isa = topos::isa();
    // Products of fewer multiply-adds than this (batches x rows x depth x
    // columns) run on the calling thread alone: below some 60 microseconds of
    // work, starting a region on the pool costs more than the other threads
    // save. 0 cuts even the smallest product into tiles over the pool (as the
    // tests do, so that small shapes exercise every tiling).
    std::size_t parallel_threshold = std::size_t{1} << 22;
    // Every output continues the sum stored in C instead of starting at +0:
    // the product is a k block of a longer one whose earlier terms C already
    // holds, so splitting a product's depth across calls keeps its bits.
    bool continue_sums = false;
};

// The product with the default options: the micro-kernel of topos::isa().
template <Element T>
void gemm(GemmExtents extents, MatrixView<T> a, MatrixView<T> b, MatrixTarget<T> c);

// The product with the given options; for tests and benchmarks. The result is
// the same bits for every option.
template <Element T>
void gemm_with(
    GemmOptions options, GemmExtents extents, MatrixView<T> a, MatrixView<T> b, MatrixTarget<T> c);

// Row-major a [rows, depth] times b [depth, columns] into out [rows, columns],
// by gemm().
template <Element T>
void multiply_matrices(
    const T* a, const T* b, T* out, std::size_t rows, std::size_t depth, std::size_t columns);

// The same with a transposed: a is row-major [depth, rows], and out [rows,
// columns] is a^T b, a read in place.
template <Element T>
void multiply_transposed_matrices(
    const T* a, const T* b, T* out, std::size_t rows, std::size_t depth, std::size_t columns);

}  // namespace topos::detail
