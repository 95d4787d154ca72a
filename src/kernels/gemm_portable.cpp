// The portable micro-kernel: a 4 x 4 tile of scalar accumulators, each taking
// its k terms in order with std::fma (the C library's correctly rounded fma
// where the processor has none). Any processor runs it.
#include "kernels/micro_kernel.hpp"

#include <cmath>

namespace topos::detail {
namespace {

constexpr std::size_t tile_rows = 4;
constexpr std::size_t tile_columns = 4;

template <Element T>
void tile(
    std::size_t depth, const T* a, const T* b, T* c, std::size_t c_row_stride, bool accumulate) {
    T sum[tile_rows][tile_columns];
    for (std::size_t r = 0; r < tile_rows; ++r) {
        for (std::size_t j = 0; j < tile_columns; ++j) {
            sum[r][j] = accumulate ? c[r * c_row_stride + j] : T{0};
        }
    }
    for (std::size_t p = 0; p < depth; ++p) {
        for (std::size_t r = 0; r < tile_rows; ++r) {
            for (std::size_t j = 0; j < tile_columns; ++j) {
                sum[r][j] = std::fma(a[r], b[j], sum[r][j]);
            }
        }
        a += tile_rows;
        b += tile_columns;
    }
    for (std::size_t r = 0; r < tile_rows; ++r) {
        for (std::size_t j = 0; j < tile_columns; ++j) {
            c[r * c_row_stride + j] = sum[r][j];
        }
    }
}

}  // namespace

template <Element T>
MicroKernel<T> portable_micro_kernel() {
    return {tile<T>, tile_rows, tile_columns, 256, 64, 1024};
}

template MicroKernel<float> portable_micro_kernel<float>();
template MicroKernel<double> portable_micro_kernel<double>();

}  // namespace topos::detail
