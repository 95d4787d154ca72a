// Packing for the GEMM: copies a block of A into row panels and a block of B
// into column panels, in the order the micro-kernel reads them (k-major, one
// panel's rows or columns contiguous per k step), padding edge panels with
// zeros that reach only discarded lanes. Reads any strides, so transposed and
// broadcast operands are packed straight from their views. The buffers are the
// calling thread's own, grown on demand and kept for its next product.
#pragma once

#include "kernels/gemm.hpp"

#include <cstddef>

namespace topos::detail {

// One matrix of a batch: element (i, j) at data[i * row_stride + j * column_stride].
template <Element T>
struct Plane {
    const T* data;
    std::ptrdiff_t row_stride;
    std::ptrdiff_t column_stride;

    const T* at(std::size_t i, std::size_t j) const {
        return data + static_cast<std::ptrdiff_t>(i) * row_stride +
               static_cast<std::ptrdiff_t>(j) * column_stride;
    }
};

template <Element T>
Plane<T> plane_of(const MatrixView<T>& view, std::size_t batch) {
    return {view.data + static_cast<std::ptrdiff_t>(batch) * view.batch_stride,
            view.row_stride,
            view.column_stride};
}

enum class PackSide : unsigned char {
    A,
    B
};

// The calling thread's buffer for one side, holding at least `elements`
// (64-byte aligned; valid until the thread's next call for that side).
template <Element T>
T* pack_buffer(PackSide side, std::size_t elements);

// Rows [row_first, row_first + rows) and depth [depth_first, depth_first +
// depth) of A, as panels of `panel_rows` rows: out[panel][p][r].
template <Element T>
void pack_a(Plane<T> a,
            std::size_t row_first,
            std::size_t rows,
            std::size_t depth_first,
            std::size_t depth,
            std::size_t panel_rows,
            T* out);

// Depth [depth_first, depth_first + depth) and columns [column_first,
// column_first + columns) of B, as panels of `panel_columns` columns:
// out[panel][p][j].
template <Element T>
void pack_b(Plane<T> b,
            std::size_t depth_first,
            std::size_t depth,
            std::size_t column_first,
            std::size_t columns,
            std::size_t panel_columns,
            T* out);

}  // namespace topos::detail
