// The AVX-512 BF16 dot-product tiles of gemm_bf16_dot: Rows x (Vectors * 16)
// float sums in zmm accumulators, each vdpbf16ps adding one k pair of
// products per lane (a broadcast pair of A against 16 column pairs of B).
// Also the k-pair interleave that packs their B panels. Compiled for
// AVX-512F, AVX-512BW and AVX512_BF16 by a target push and pop only, so the
// rest of the library stays baseline x86-64; called only where the processor
// reports AVX512_BF16 (runs_avx512_bf16).
#if defined(__x86_64__)

#include "kernels/micro_kernel_bf16.hpp"

#include <cstdint>
#include <cstring>
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512bf16"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512bf16")
#endif

namespace topos::detail {
namespace {

constexpr std::size_t lanes = 16;  // float sums per zmm; bf16 values per zmm: 2 * lanes

__m512bh as_pairs(__m512i bits) {
    return reinterpret_cast<__m512bh>(bits);
}

// The k pair at `pair` (two bf16) in every lane.
__m512bh broadcast_pair(const bf16* pair) {
    std::int32_t bits = 0;
    std::memcpy(&bits, pair, sizeof bits);
    return as_pairs(_mm512_set1_epi32(bits));
}

// One tile, a SumTileFunction<bf16>: per k pair the A panel holds Rows pairs,
// the B panel Vectors * 16.
template <std::size_t Rows, std::size_t Vectors>
void dot_tile(std::size_t depth,
              const bf16* a,
              const bf16* b,
              float* c,
              std::size_t c_row_stride,
              bool accumulate) {
    constexpr std::size_t rows = Rows;
    constexpr std::size_t vectors = Vectors;
    __m512 sum[rows][vectors];
#pragma GCC unroll 24
    for (std::size_t r = 0; r < rows; ++r) {
#pragma GCC unroll 2
        for (std::size_t v = 0; v < vectors; ++v) {
            sum[r][v] = accumulate ? _mm512_loadu_ps(c + r * c_row_stride + v * lanes)
                                   : _mm512_setzero_ps();
        }
    }
    for (std::size_t p = 0; p < depth; p += 2) {
        __m512bh b_pairs[vectors];
#pragma GCC unroll 2
        for (std::size_t v = 0; v < vectors; ++v) {
            b_pairs[v] = as_pairs(_mm512_loadu_si512(b + v * 2 * lanes));
        }
#pragma GCC unroll 24
        for (std::size_t r = 0; r < rows; ++r) {
            const __m512bh a_pair = broadcast_pair(a + 2 * r);
#pragma GCC unroll 2
            for (std::size_t v = 0; v < vectors; ++v) {
                sum[r][v] = _mm512_dpbf16_ps(sum[r][v], a_pair, b_pairs[v]);
            }
        }
        a += 2 * rows;
        b += 2 * lanes * vectors;
    }
#pragma GCC unroll 24
    for (std::size_t r = 0; r < rows; ++r) {
#pragma GCC unroll 2
        for (std::size_t v = 0; v < vectors; ++v) {
            _mm512_storeu_ps(c + r * c_row_stride + v * lanes, sum[r][v]);
        }
    }
}

// k blocks of 512 (256 pairs: a 32-column B panel of 32 KiB), 120 rows of A
// and 4,096 columns of B per block.
template <std::size_t Rows, std::size_t Vectors>
SumMicroKernel<bf16> dot_kernel() {
    return {dot_tile<Rows, Vectors>, Rows, Vectors * lanes, 512, 120, 4096};
}

// The word indices of vpermt2w that interleave 16 words of `even` (indices
// first + t) with the 16 of `odd` (32 + first + t): even, odd, even, ...
__m512i interleaving(std::size_t first) {
    alignas(64) std::int16_t indices[2 * lanes];
    for (std::size_t t = 0; t < lanes; ++t) {
        indices[2 * t] = static_cast<std::int16_t>(first + t);
        indices[2 * t + 1] = static_cast<std::int16_t>(2 * lanes + first + t);
    }
    return _mm512_load_si512(indices);
}

}  // namespace

void avx512_interleave_pairs(const bf16* even, const bf16* odd, std::size_t count, bf16* out) {
    const __m512i low = interleaving(0);
    const __m512i high = interleaving(lanes);
    std::size_t j = 0;
    for (; j + 2 * lanes <= count; j += 2 * lanes) {
        const __m512i evens = _mm512_loadu_si512(even + j);
        const __m512i odds = _mm512_loadu_si512(odd + j);
        _mm512_storeu_si512(out + 2 * j, _mm512_permutex2var_epi16(evens, low, odds));
        _mm512_storeu_si512(out + 2 * j + 2 * lanes, _mm512_permutex2var_epi16(evens, high, odds));
    }
    for (; j < count; ++j) {
        out[2 * j] = even[j];
        out[2 * j + 1] = odd[j];
    }
}

SumMicroKernel<bf16> avx512_bf16_dot_micro_kernel() {
    return dot_kernel<12, 2>();
}

SumMicroKernel<bf16> avx512_bf16_dot_narrow_micro_kernel() {
    return dot_kernel<24, 1>();
}

}  // namespace topos::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
