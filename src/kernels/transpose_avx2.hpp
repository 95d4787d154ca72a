// Matrix transposes with AVX: square tiles (8 x 8 floats, 4 x 4 doubles,
// 8 x 8 bf16s) moved through registers by shuffles, so both the reads and the
// writes are whole vectors. Data movement only: every value keeps its bits. Only for
// processors where runs_avx2_fma() holds.
#pragma once

#include "kernels/elementwise.hpp"
#include <topos/core/bf16.hpp>

#include <cstddef>

namespace topos::detail {

#if defined(TOPOS_HAS_AVX2_LOOPS)
// The edge of a square tile: 8 floats, 4 doubles or 8 bf16s (a row of 16 bytes).
template <class T>
inline constexpr std::size_t transpose_tile = sizeof(T) == 2 ? 8 : 32 / sizeof(T);

// out[j * out_stride + i] = in[i * in_stride + j] for i, j < transpose_tile<T>.
void transpose_tile_avx2(const float* in,
                         std::size_t in_stride,
                         float* out,
                         std::size_t out_stride);
void transpose_tile_avx2(const double* in,
                         std::size_t in_stride,
                         double* out,
                         std::size_t out_stride);
void transpose_tile_avx2(const bf16* in, std::size_t in_stride, bf16* out, std::size_t out_stride);

// The first `rows` (< 8) rows of a tile of 8 floats each, transposed into
// 8 x rows contiguous floats: column j's values at out[j * rows + i]. Writes
// exactly those 8 * rows floats.
void transpose_short_tile_avx2(const float* in,
                               std::size_t in_stride,
                               std::size_t rows,
                               float* out);
#endif

}  // namespace topos::detail
