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

// One panel of A whose rows are contiguous (row-major A), or of B whose
// columns are (a transposed B): each row is read as one run and scattered
// down its lane of the panel, so the reads stream
// instead of touching `filled` distant rows for every p; with AVX, whole
// square tiles of rows are transposed in registers first.
template <Element T>
void pack_rows_of_panel(const T* first_row,
                        std::ptrdiff_t row_stride,
                        std::size_t filled,
                        std::size_t depth,
                        std::size_t panel_rows,
                        T* out) {
    std::size_t r = 0;
#if defined(TOPOS_HAS_AVX2_LOOPS)
    constexpr std::size_t tile = transpose_tile<T>;
    if (runs_avx2_fma() && row_stride > 0) {
        const auto stride = static_cast<std::size_t>(row_stride);
        const std::size_t whole_depth = depth / tile * tile;
        if constexpr (std::is_same_v<T, float>) {
            if (filled == panel_rows && filled < tile) {
                // A whole panel narrower than a tile (the 6 rows of the float
                // kernel): tile after tile of depths, its rows only.
                for (std::size_t p = 0; p < whole_depth; p += tile) {
                    transpose_short_tile_avx2(first_row + p, stride, filled, out + p * panel_rows);
                }
                for (std::size_t p = whole_depth; p < depth; ++p) {
                    for (std::size_t i = 0; i < filled; ++i) {
                        out[p * panel_rows + i] = first_row[i * stride + p];
                    }
                }
                return;
            }
        }
        for (; r + tile <= filled; r += tile) {
            const T* rows = first_row + r * stride;
            for (std::size_t p = 0; p < whole_depth; p += tile) {
                transpose_tile_avx2(rows + p, stride, out + p * panel_rows + r, panel_rows);
            }
            for (std::size_t i = 0; i < tile; ++i) {
                for (std::size_t p = whole_depth; p < depth; ++p) {
                    out[p * panel_rows + r + i] = rows[i * stride + p];
                }
            }
        }
    }
#endif
    for (; r < filled; ++r) {
        const T* row = first_row + static_cast<std::ptrdiff_t>(r) * row_stride;
        T* lane = out + r;
        for (std::size_t p = 0; p < depth; ++p) {
            lane[p * panel_rows] = row[p];
        }
    }
    if (filled < panel_rows) {
        for (std::size_t p = 0; p < depth; ++p) {
            std::fill(out + p * panel_rows + filled, out + (p + 1) * panel_rows, T{0});
        }
    }
}

// One panel of A read down its columns: contiguous when A is transposed.
template <Element T>
void pack_columns_of_panel(Plane<T> a,
                           const T* first_row,
                           std::size_t filled,
                           std::size_t depth,
                           std::size_t panel_rows,
                           T* out) {
    for (std::size_t p = 0; p < depth; ++p) {
        const T* column = first_row + static_cast<std::ptrdiff_t>(p) * a.column_stride;
        if (a.row_stride == 1) {
            // A loop, not std::copy_n: a panel's few elements cost less than a call.
            for (std::size_t r = 0; r < filled; ++r) {
                out[r] = column[r];
            }
        } else {
            for (std::size_t r = 0; r < filled; ++r) {
                out[r] = column[static_cast<std::ptrdiff_t>(r) * a.row_stride];
            }
        }
        std::fill(out + filled, out + panel_rows, T{0});
        out += panel_rows;
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
    for (std::size_t panel = 0; panel < rows; panel += panel_rows) {
        const std::size_t filled = std::min(panel_rows, rows - panel);
        const T* first_row = a.at(row_first + panel, depth_first);
        if (a.column_stride == 1 && a.row_stride != 1) {
            pack_rows_of_panel(first_row, a.row_stride, filled, depth, panel_rows, out);
        } else {
            pack_columns_of_panel(a, first_row, filled, depth, panel_rows, out);
        }
        out += depth * panel_rows;
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
    // A few rows at a time across every panel: each row is read along its
    // length rather than one panel's width per row stride.
    constexpr std::size_t rows_at_once = 8;
    for (std::size_t p_first = 0; p_first < depth; p_first += rows_at_once) {
        const std::size_t p_end = std::min(depth, p_first + rows_at_once);
        for (std::size_t panel = 0; panel < columns; panel += panel_columns) {
            const std::size_t filled = std::min(panel_columns, columns - panel);
            for (std::size_t p = p_first; p < p_end; ++p) {
                const T* row = b.at(depth_first + p, column_first + panel);
                T* to = out + panel * depth + p * panel_columns;
                if (b.column_stride == 1) {
                    for (std::size_t j = 0; j < filled; ++j) {
                        to[j] = row[j];
                    }
                } else {
                    for (std::size_t j = 0; j < filled; ++j) {
                        to[j] = row[static_cast<std::ptrdiff_t>(j) * b.column_stride];
                    }
                }
                std::fill(to + filled, to + panel_columns, T{0});
            }
        }
    }
}

template float* pack_buffer<float>(PackSide, std::size_t);
template double* pack_buffer<double>(PackSide, std::size_t);
template void pack_a<float>(
    Plane<float>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, float*);
template void pack_a<double>(
    Plane<double>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, double*);
template void pack_b<float>(
    Plane<float>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, float*);
template void pack_b<double>(
    Plane<double>, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, double*);

}  // namespace topos::detail
