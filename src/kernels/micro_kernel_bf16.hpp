// The register tiles of the bf16 products: a rows x columns tile of float sums
// updated by a k block of packed panels whose element type is `Packed` (float
// for the exact product, whose tiles are the float GEMM's; bf16 k pairs for
// the AVX-512 BF16 dot product). The tile starts from +0 (accumulate false) or
// from the float sums stored at c (accumulate true). `depth` counts the
// panels' depths, padded as the packing padded them (even for k pairs).
#pragma once

#include "kernels/micro_kernel.hpp"
#include <topos/core/bf16.hpp>

#include <cstddef>

namespace topos::detail {

template <class Packed>
using SumTileFunction = void (*)(std::size_t depth,
                                 const Packed* a_panel,
                                 const Packed* b_panel,
                                 float* c,
                                 std::size_t c_row_stride,
                                 bool accumulate);

template <class Packed>
struct SumMicroKernel {
    SumTileFunction<Packed> tile;
    std::size_t rows;
    std::size_t columns;
    std::size_t depth_block;  // even where Packed is bf16: k pairs never straddle blocks
    std::size_t row_block;
    std::size_t column_block;
};

#if defined(__x86_64__)
// The vdpbf16ps tiles: 12 x 32 and, for products of at most 16 columns, 24 x
// 16. Each instruction adds to a lane's float sum the two products of a k
// pair (exact in float), rounding to float, with denormal inputs read as zero
// and denormal results flushed to zero. Call only where the processor runs
// AVX512_BF16 (runs_avx512_bf16).
SumMicroKernel<bf16> avx512_bf16_dot_micro_kernel();
SumMicroKernel<bf16> avx512_bf16_dot_narrow_micro_kernel();

// The k-pair interleave of their B panels (a PairInterleave, pack_bf16.hpp)
// in AVX-512BW word permutes, for the same processors.
void avx512_interleave_pairs(const bf16* even, const bf16* odd, std::size_t count, bf16* out);
#endif

}  // namespace topos::detail
