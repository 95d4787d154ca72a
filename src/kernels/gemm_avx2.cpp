// The AVX2 + FMA micro-kernels: a 6 x 16 float tile (6 x 8 for double), twelve
// ymm accumulators, and a narrow 12 x 8 one (12 x 4), the register tile of
// micro_kernel_x86.hpp over 256-bit lanes.
// Compiled for AVX2 + FMA by function attributes and a target push and pop only,
// so the rest of the library stays baseline x86-64; called only where the
// processor reports both.
#if defined(__x86_64__)

#include "kernels/micro_kernel.hpp"
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

}  // namespace topos::detail

#endif
