// The exact matrix product: C = A B for each of `batches` matrix triples, on
// strided views (a transpose is a swap of strides, a shared operand a batch
// stride of 0, so callers pass views and nothing is copied beforehand). Each
// output element starts at +0 and accumulates its k terms in ascending order
// with one fma each -- the MatMul reference order -- so the bits equal the
// reference loop's for every size, layout, micro-kernel and thread count. The
// kernel is register- and cache-blocked (packed panels, k blocks continued from
// the stored partial sums) and splits independent output tiles, never k, over
// the library's thread pool.
#pragma once

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

// The instruction sets a micro-kernel is written for.
enum class GemmIsa : std::uint8_t {
    Portable,  // std::fma, any processor
    Avx2,      // x86-64 with AVX2 + FMA
    Avx512,    // x86-64 with AVX-512F
};

const char* gemm_isa_name(GemmIsa isa);

// The instruction sets this processor can run, portable first.
std::span<const GemmIsa> available_gemm_isas();

// The fastest of available_gemm_isas().
GemmIsa best_gemm_isa();

// The product with the fastest micro-kernel this processor runs.
template <Element T>
void gemm(GemmExtents extents, MatrixView<T> a, MatrixView<T> b, MatrixTarget<T> c);

// The product with a chosen micro-kernel (which must be available); for tests
// and benchmarks.
template <Element T>
void gemm_with(
    GemmIsa isa, GemmExtents extents, MatrixView<T> a, MatrixView<T> b, MatrixTarget<T> c);

// Products of fewer multiply-adds than this (1 << 22 by default, some 60
// microseconds of work) run on the calling thread alone: starting a region on
// the pool would cost more than the other threads save. Returns the previous
// value; tests set 0 so that even small products are cut into tiles over the
// pool.
std::size_t set_gemm_parallel_threshold(std::size_t multiply_adds);

}  // namespace topos::detail
