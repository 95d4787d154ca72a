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

// One row of A over a bf16 B, 32 columns a 512-bit load: each 32-bit lane
// holds two neighbouring columns, the even one widened by a shift and the odd
// one by clearing its low half, summed in separate accumulators (each lane
// still one column's fma chain in ascending k, so the bits are the widening
// sweep's). Half the loads and none of the zero-extending shuffles of
// WidenedBf16, and 24 accumulators fit beside the two widened halves: a run
// of 768 bytes of each B row, where one thread's loads keep more of the
// memory's bandwidth busy. The pairs go back into column order once, at the
// store.
// The columns one 512-bit load of bf16 pairs spans.
constexpr std::size_t pair_chunk = 32;
static_assert(pair_chunk * 4 == sweep_part_columns<float>);

template <std::size_t Chunks>
[[gnu::target("avx512f")]] void sweep_bf16_pairs(const SweepOperands<float, bf16>& o,
                                                 std::size_t column) {
    const __m512i high_half = _mm512_set1_epi32(static_cast<int>(0xffff0000U));
    const __m512i evens =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds =
        _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512i first_half =
        _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second_half =
        _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    __m512 even[Chunks];
    __m512 odd[Chunks];
#pragma GCC unroll 16
    for (std::size_t v = 0; v < Chunks; ++v) {
        if (o.continues) {
            const __m512 low = _mm512_loadu_ps(o.c + column + pair_chunk * v);
            const __m512 high = _mm512_loadu_ps(o.c + column + pair_chunk * v + 16);
            even[v] = _mm512_permutex2var_ps(low, evens, high);
            odd[v] = _mm512_permutex2var_ps(low, odds, high);
        } else {
            even[v] = _mm512_setzero_ps();
            odd[v] = _mm512_setzero_ps();
        }
    }
    const bf16* b = o.b + column;
    for (std::size_t p = 0; p < o.depth; ++p) {
        const bf16* b_row = b + static_cast<std::ptrdiff_t>(p) * o.b_row_stride;
        prefetch_row_ahead<bf16, pair_chunk * Chunks>(b_row, o.b_row_stride);
        const __m512 a = _mm512_set1_ps(o.a[static_cast<std::ptrdiff_t>(p) * o.a_column_stride]);
#pragma GCC unroll 16
        for (std::size_t v = 0; v < Chunks; ++v) {
            const __m512i pairs = _mm512_loadu_si512(b_row + pair_chunk * v);
            even[v] = _mm512_fmadd_ps(
                a, _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, pairs, 16)), even[v]);
            odd[v] =
                _mm512_fmadd_ps(a, _mm512_castsi512_ps(_mm512_and_si512(pairs, high_half)), odd[v]);
        }
    }
#pragma GCC unroll 16
    for (std::size_t v = 0; v < Chunks; ++v) {
        _mm512_storeu_ps(o.c + column + pair_chunk * v,
                         _mm512_permutex2var_ps(even[v], first_half, odd[v]));
        _mm512_storeu_ps(o.c + column + pair_chunk * v + 16,
                         _mm512_permutex2var_ps(even[v], second_half, odd[v]));
    }
}

// Columns [column, end) of one row in pair blocks, the widest that fit first;
// returns the first column left (fewer than pair_chunk).
[[gnu::target("avx512f")]] std::size_t sweep_bf16_pair_blocks(const SweepOperands<float, bf16>& o,
                                                              std::size_t column,
                                                              std::size_t end) {
    for (; column + pair_chunk * 12 <= end; column += pair_chunk * 12) {
        sweep_bf16_pairs<12>(o, column);
    }
    if (column + pair_chunk * 8 <= end) {
        sweep_bf16_pairs<8>(o, column);
        column += pair_chunk * 8;
    }
    if (column + pair_chunk * 4 <= end) {
        sweep_bf16_pairs<4>(o, column);
        column += pair_chunk * 4;
    }
    for (; column + pair_chunk <= end; column += pair_chunk) {
        sweep_bf16_pairs<1>(o, column);
    }
    return column;
}

}  // namespace

void avx512_widening_row_sweep(const SweepOperands<float, bf16>& operands,
                               std::size_t first,
                               std::size_t count) {
    if (operands.rows == 1) {
        const std::size_t end = first + count;
        const std::size_t rest = sweep_bf16_pair_blocks(operands, first, end);
        sweep<FloatLanes, 16, WidenedBf16>(operands, rest, end - rest);
        return;
    }
    sweep<FloatLanes, 16, WidenedBf16>(operands, first, count);
}

}  // namespace topos::detail

#endif
