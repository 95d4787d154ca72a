// The AVX2 + FMA micro-kernels: a 6 x 16 float tile (6 x 8 for double), twelve
// ymm accumulators, and a narrow 12 x 8 one (12 x 4), the register tile of
// micro_kernel_x86.hpp over 256-bit lanes.
// Compiled for AVX2 + FMA by function attributes and a target push and pop only,
// so the rest of the library stays baseline x86-64; called only where the
// processor reports both.
#if defined(__x86_64__)

#include "kernels/micro_kernel.hpp"
#include "kernels/row_sweep.hpp"
#include <topos/core/tensor.hpp>

#include <concepts>
#include <cstddef>
#include <immintrin.h>

// The register tile, compiled for AVX2 + FMA (its includes above are not).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#include "kernels/micro_kernel_x86.hpp"
#include "kernels/row_sweep_x86.hpp"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#include "kernels/lanes_avx2.hpp"

namespace topos::detail {
namespace {

constexpr std::size_t tile_rows = 6;
constexpr std::size_t tile_vectors = 2;       // vectors across a tile row
constexpr std::size_t narrow_tile_rows = 12;  // one vector across

}  // namespace

template <>
MicroKernel<float> avx2_micro_kernel<float>() {
    return tile_kernel<FloatLanes, tile_rows, tile_vectors>();
}

template <>
MicroKernel<double> avx2_micro_kernel<double>() {
    return tile_kernel<DoubleLanes, tile_rows, tile_vectors>();
}

template <>
MicroKernel<float> avx2_narrow_micro_kernel<float>() {
    return tile_kernel<FloatLanes, narrow_tile_rows, 1>();
}

template <>
MicroKernel<double> avx2_narrow_micro_kernel<double>() {
    return tile_kernel<DoubleLanes, narrow_tile_rows, 1>();
}

template <>
void avx2_row_sweep<float>(const SweepOperands<float>& operands,
                           std::size_t first,
                           std::size_t count) {
    sweep<FloatLanes, 8>(operands, first, count);
}

template <>
void avx2_row_sweep<double>(const SweepOperands<double>& operands,
                            std::size_t first,
                            std::size_t count) {
    sweep<DoubleLanes, 8>(operands, first, count);
}

namespace {

// Eight bf16 elements of B widened to float lanes: their bits moved
// up 16, exactly bf16's widening.
struct WidenedBf16 {
    using Element = bf16;

    [[gnu::target("avx2,fma"), gnu::always_inline]] static inline __m256 load(const bf16* p) {
        return _mm256_castsi256_ps(_mm256_slli_epi32(
            _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
    }
};

}  // namespace

void avx2_widening_row_sweep(const SweepOperands<float, bf16>& operands,
                             std::size_t first,
                             std::size_t count) {
    sweep<FloatLanes, 8, WidenedBf16>(operands, first, count);
}

}  // namespace topos::detail

#endif
