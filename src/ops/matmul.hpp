// The matrix product every exact caller shares: out[i, j] starts at +0 and
// accumulates a[i, p] * b[p, j] over ascending p with one fma each.
#pragma once

#include <topos/core/tensor.hpp>

#include <cstddef>

namespace topos::detail {

// Row-major a [rows, depth] times b [depth, columns] into out [rows, columns].
template <Element T>
void multiply_matrices(
    const T* a, const T* b, T* out, std::size_t rows, std::size_t depth, std::size_t columns);

// The same with a transposed: a is row-major [depth, rows], and out [rows,
// columns] is a^T b, a read in place.
template <Element T>
void multiply_transposed_matrices(
    const T* a, const T* b, T* out, std::size_t rows, std::size_t depth, std::size_t columns);

}  // namespace topos::detail
