// The AVX-512 micro-kernels: a 12 x 32 float tile (12 x 16 for double) and a
// narrow 24 x 16 one (24 x 8), 24 zmm accumulators each, the register tile of
// micro_kernel_x86.hpp over 512-bit lanes.
// Compiled for AVX-512F by function attributes and a target push and pop only,
// so the rest of the library stays baseline x86-64; called only where the
// processor reports AVX-512F.
#if defined(__x86_64__)

#include "kernels/micro_kernel.hpp"
#include "kernels/row_sweep.hpp"
#include <topos/core/tensor.hpp>

#include <concepts>
#include <cstddef>
#include <immintrin.h>

// The register tile, compiled for AVX-512F (its includes above are not).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
#include "kernels/micro_kernel_x86.hpp"
#include "kernels/row_sweep_x86.hpp"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#include "kernels/lanes_avx512.hpp"

namespace topos::detail {
namespace {

constexpr std::size_t tile_rows = 12;
constexpr std::size_t tile_vectors = 2;       // vectors across a tile row
constexpr std::size_t narrow_tile_rows = 24;  // one vector across

}  // namespace

template <>
MicroKernel<float> avx512_micro_kernel<float>() {
    return tile_kernel<FloatLanes, tile_rows, tile_vectors>();
}

template <>
MicroKernel<double> avx512_micro_kernel<double>() {
    return tile_kernel<DoubleLanes, tile_rows, tile_vectors>();
}

template <>
MicroKernel<float> avx512_narrow_micro_kernel<float>() {
    return tile_kernel<FloatLanes, narrow_tile_rows, 1>();
}

template <>
MicroKernel<double> avx512_narrow_micro_kernel<double>() {
    return tile_kernel<DoubleLanes, narrow_tile_rows, 1>();
}

template <>
void avx512_row_sweep<float>(const SweepOperands<float>& operands,
                             std::size_t first,
                             std::size_t count) {
    sweep<FloatLanes, 16>(operands, first, count);
}

template <>
void avx512_row_sweep<double>(const SweepOperands<double>& operands,
                              std::size_t first,
                              std::size_t count) {
    sweep<DoubleLanes, 16>(operands, first, count);
}

namespace {

// Sixteen bf16 elements of B widened to float lanes: their bits moved
// up 16, exactly bf16's widening.
struct WidenedBf16 {
    using Element = bf16;

    [[gnu::target("avx512f"), gnu::always_inline]] static inline __m512 load(const bf16* p) {
        // The zero-masked forms: GCC 12 takes the unmasked ones' undefined
        // pass-through for an uninitialised read.
        const __m512i widened = _mm512_maskz_cvtepu16_epi32(
            0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, widened, 16));
    }
};

}  // namespace

void avx512_widening_row_sweep(const SweepOperands<float, bf16>& operands,
                               std::size_t first,
                               std::size_t count) {
    sweep<FloatLanes, 16, WidenedBf16>(operands, first, count);
}

}  // namespace topos::detail

#endif
