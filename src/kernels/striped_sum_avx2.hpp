// The striped sums of contiguous runs (sum.cpp's order) with AVX2: the 16
// partial sums live in vector registers, two of 8 floats or four of 4
// doubles. Each lane adds its terms in ascending order; a short last block is
// padded with -0, which leaves a partial unchanged (p + -0 is p for every p);
// then the partials fold in halves as sum.cpp documents. Only for processors
// where runs_avx2_fma() holds.
#pragma once

#include "kernels/elementwise.hpp"

#include <cstddef>

namespace topos::detail {

#if defined(TOPOS_HAS_AVX2_LOOPS)
// out[o] is the striped sum of x[o * extent .. (o + 1) * extent), o < runs.
void striped_sums_avx2(const float* x, std::size_t runs, std::size_t extent, float* out);
void striped_sums_avx2(const double* x, std::size_t runs, std::size_t extent, double* out);
#endif

}  // namespace topos::detail
