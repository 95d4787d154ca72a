// Packing A and B blocks into micro-kernel panels; see pack.hpp.
#include "kernels/pack.hpp"

#include "kernels/transpose_avx2.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <type_traits>

namespace topos::detail {
namespace {

constexpr std::align_val_t pack_alignment{64};

template <Element T>
class GrowingBuffer {
public:
    T* reserve(std::size_t elements) {
        if (elements > capacity_) {
            data_.reset(static_cast<T*>(::operator new(elements * sizeof(T), pack_alignment)));
            capacity_ = elements;
        }
        return data_.get();
    }

private:
    struct Release {
        void operator()(T* data) const { ::operator delete(data, pack_alignment); }
    };

    std::unique_ptr<T, Release> data_;
    std::size_t capacity_ = 0;
};

// Rows [row_first, row_end) and depths [depth_first, depth_end) of a panel,
// value by value: out[p * panel_rows + r] = first_row[r * row_stride + p].
template <Element T>
void copy_values(const T* first_row,
                 std::ptrdiff_t row_stride,
                 std::size_t row_first,
                 std::size_t row_end,
                 std::size_t depth_first,
                 std::size_t depth_end,
                 std::size_t panel_rows,
                 T* out) {
    for (std::size_t r = row_first; r < row_end; ++r) {
        const T* row = first_row + static_cast<std::ptrdiff_t>(r) * row_stride;
        for (std::size_t p = depth_first; p < depth_end; ++p) {
            out[p * panel_rows + r] = row[p];
        }
    }
}

#if defined(TOPOS_HAS_AVX2_LOOPS)
// The whole square tiles of a panel's rows, transposed in AVX registers over
// the depths that fill tiles; a float panel narrower than a tile (the AVX2
// kernel's 6 rows) as tiles whose missing rows are zeros. Returns how many
// rows the tiles covered.
template <Element T>
std::size_t transpose_tiles_of_panel(const T* first_row,
                                     std::size_t stride,
                                     std::size_t filled,
                                     std::size_t whole_depth,
                                     std::size_t panel_rows,
                                     T* out) {
    constexpr std::size_t tile = transpose_tile<T>;
    if constexpr (std::is_same_v<T, float>) {
        if (filled == panel_rows && filled < tile) {
            for (std::size_t p = 0; p < whole_depth; p += tile) {
                transpose_short_tile_avx2(first_row + p, stride, filled, out + p * panel_rows);
            }
            return filled;
        }
    }
    std::size_t r = 0;
    for (; r + tile <= filled; r += tile) {
        for (std::size_t p = 0; p < whole_depth; p += tile) {
            transpose_tile_avx2(
                first_row + r * stride + p, stride, out + p * panel_rows + r, panel_rows);
        }
    }
    return r;
}
#endif

// One panel of A whose rows are contiguous (row-major A), or of B whose
// columns are (a transposed B): each row is read as one run and scattered
// down its lane of the panel, so the reads stream instead of touching
// `filled` distant rows for every p; with AVX, square tiles of rows are
// transposed in registers first, and only what they leave is copied value by
// value.
template <Element T>
void pack_rows_of_panel(const T* first_row,
                        std::ptrdiff_t row_stride,
                        std::size_t filled,
                        std::size_t depth,
                        std::size_t panel_rows,
                        T* out) {
    std::size_t tiled_rows = 0;
    std::size_t tiled_depth = 0;
#if defined(TOPOS_HAS_AVX2_LOOPS)
    if (runs_avx2_fma() && row_stride > 0) {
        tiled_depth = depth / transpose_tile<T> * transpose_tile<T>;
        tiled_rows = transpose_tiles_of_panel(
            first_row, static_cast<std::size_t>(row_stride), filled, tiled_depth, panel_rows, out);
    }
#endif
    copy_values(first_row, row_stride, 0, tiled_rows, tiled_depth, depth, panel_rows, out);
    copy_values(first_row, row_stride, tiled_rows, filled, 0, depth, panel_rows, out);
    if (filled < panel_rows) {
        for (std::size_t p = 0; p < depth; ++p) {
            std::fill(out + p * panel_rows + filled, out + (p + 1) * panel_rows, T{0});
        }
    }
}

// Panels whose values at one depth lie along a run of the source (a row of a
// row-major B, a column of a transposed A): value j of depth p at
// first[p * depth_stride + j * run_stride]. A few depths at a time across
// every panel, so each run is read along its length rather than one panel's
// width per depth stride.
template <Element T>
void pack_runs(const T* first,
               std::ptrdiff_t depth_stride,
               std::ptrdiff_t run_stride,
               std::size_t extent,
               std::size_t depth,
               std::size_t panel_width,
               T* out) {
    constexpr std::size_t depths_at_once = 8;
    for (std::size_t p_first = 0; p_first < depth; p_first += depths_at_once) {
        const std::size_t p_end = std::min(depth, p_first + depths_at_once);
        for (std::size_t panel = 0; panel < extent; panel += panel_width) {
            const std::size_t filled = std::min(panel_width, extent - panel);
            for (std::size_t p = p_first; p < p_end; ++p) {
                const T* run = first + static_cast<std::ptrdiff_t>(p) * depth_stride +
                               static_cast<std::ptrdiff_t>(panel) * run_stride;
                T* to = out + panel * depth + p * panel_width;
                if (run_stride == 1) {
                    // A loop, not std::copy_n: a panel's few values cost less than a call.
                    for (std::size_t j = 0; j < filled; ++j) {
                        to[j] = run[j];
                    }
                } else {
                    for (std::size_t j = 0; j < filled; ++j) {
                        to[j] = run[static_cast<std::ptrdiff_t>(j) * run_stride];
                    }
                }
                std::fill(to + filled, to + panel_width, T{0});
            }
        }
    }
}

}  // namespace

template <Element T>
T* pack_buffer(PackSide side, std::size_t elements) {
    thread_local GrowingBuffer<T> a_side;
    thread_local GrowingBuffer<T> b_side;
    return (side == PackSide::A ? a_side : b_side).reserve(elements);
}

// The packing loops start on a cache line: where the linker happened to place
// them moved small float products by a few percent.
template <Element T>
[[gnu::aligned(64)]] void pack_a(Plane<T> a,
                                 std::size_t row_first,
                                 std::size_t rows,
                                 std::size_t depth_first,
                                 std::size_t depth,
                                 std::size_t panel_rows,
                                 T* out) {
    if (a.column_stride != 1 || a.row_stride == 1) {
        // A transposed (or strided both ways): each column is a run.
        pack_runs(a.at(row_first, depth_first),
                  a.column_stride,
                  a.row_stride,
                  rows,
                  depth,
                  panel_rows,
                  out);
        return;
    }
    for (std::size_t panel = 0; panel < rows; panel += panel_rows) {
        pack_rows_of_panel(a.at(row_first + panel, depth_first),
                           a.row_stride,
                           std::min(panel_rows, rows - panel),
                           depth,
                           panel_rows,
                           out + panel * depth);
    }
}

template <Element T>
[[gnu::aligned(64)]] void pack_b(Plane<T> b,
                                 std::size_t depth_first,
                                 std::size_t depth,
                                 std::size_t column_first,
                                 std::size_t columns,
                                 std::size_t panel_columns,
                                 T* out) {
    if (b.row_stride == 1 && b.column_stride != 1) {
        // A transposed B: each column is a run, as each row of a row-major A.
        for (std::size_t panel = 0; panel < columns; panel += panel_columns) {
            pack_rows_of_panel(b.at(depth_first, column_first + panel),
                               b.column_stride,
                               std::min(panel_columns, columns - panel),
                               depth,
                               panel_columns,
                               out + panel * depth);
        }
        return;
    }
    pack_runs(b.at(depth_first, column_first),
              b.row_stride,
              b.column_stride,
              columns,
              depth,
              panel_columns,
              out);
}

template float* pack_buffer<float>(PackSide, std::size_t);
template double* pack_buffer<double>(PackSide, std::size_t);
template bf16* pack_buffer<bf16>(PackSide, std::size_t);
template void pack_a<float>(
    Plane<float>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, float*);
template void pack_a<double>(
    Plane<double>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, double*);
template void pack_b<float>(
    Plane<float>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, float*);
template void pack_b<double>(
    Plane<double>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, double*);

}  // namespace topos::detail
