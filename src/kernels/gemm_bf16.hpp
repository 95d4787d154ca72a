// Matrix products of bf16 operands into a bf16 result, on the strided views of
// gemm.hpp (transposes and shared operands read in place). Both sum in float
// and round each output once to bf16, to nearest, ties to even.
//
// gemm_bf16 is exact: its bits are those of rounding the exact float GEMM of
// the widened operands (the bf16 contract of a MatMul node), for every size,
// layout, instruction set and thread count. Panels are packed straight from
// bf16, widened as they are packed; the float tiles are the float GEMM's.
//
// gemm_bf16_dot is Fast: vdpbf16ps (AVX-512 BF16) over k pairs. Each output
// is s = sum over p of a_p b_p, every product exact in float and each of the
// at most k additions rounded to float, so before the final rounding
// |s - exact| <= gamma_k * sum_p |a_p b_p| (gamma_k = k u / (1 - k u), u =
// 2^-24): a float dot product in another order. Rounding to bf16 then adds at
// most half a bf16 ulp (2^-8 of the result). Beyond that bound the instruction
// reads denormal inputs as zero, dropping each term one enters, and flushes
// denormal sums to zero, moving an output by less than 2^-126 per addition.
#pragma once

#include "kernels/gemm.hpp"
#include <topos/core/bf16.hpp>

#include <cstddef>

namespace topos::detail {

// How a bf16 product runs; the defaults are what the plain calls use.
struct Bf16GemmOptions {
    // The instruction set: the exact product's float tiles are this set's;
    // the dot product runs only where it is Avx512 and the processor has
    // AVX512_BF16. By default topos::isa() when the options are made.
    Isa isa = topos::isa();
    // Products of fewer multiply-adds than this run on the calling thread
    // alone (GemmOptions::parallel_threshold); 0 cuts every product into
    // tiles over the pool.
    std::size_t parallel_threshold = std::size_t{1} << 22;
};

// The exact product with the default options.
void gemm_bf16(GemmExtents extents, MatrixView<bf16> a, MatrixView<bf16> b, MatrixTarget<bf16> c);

// The exact product with the given options: the same bits for every option.
void gemm_bf16_with(Bf16GemmOptions options,
                    GemmExtents extents,
                    MatrixView<bf16> a,
                    MatrixView<bf16> b,
                    MatrixTarget<bf16> c);

// Whether the dot product runs on this processor under `isa`: it has
// AVX512_BF16 (cpuid leaf 7, subleaf 1, EAX bit 5) and AVX-512BW, and isa is
// Avx512.
bool runs_avx512_bf16(Isa isa = topos::isa());

// The Fast product with the default options: within the bound above.
void gemm_bf16_dot(GemmExtents extents,
                   MatrixView<bf16> a,
                   MatrixView<bf16> b,
                   MatrixTarget<bf16> c);

// The Fast product with the given options; where runs_avx512_bf16(options.isa)
// is false, or for at most row_sweep_rows rows over a row-major B (a product
// bound by reading B, as in decoding), the exact product (which keeps every
// bound).
void gemm_bf16_dot_with(Bf16GemmOptions options,
                        GemmExtents extents,
                        MatrixView<bf16> a,
                        MatrixView<bf16> b,
                        MatrixTarget<bf16> c);

}  // namespace topos::detail
