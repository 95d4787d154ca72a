// One row of window taps folded back onto an image plane with vector
// registers, for windows that step and dilate by 1 and rows that fit in one
// vector. The sums are those of the scalar fold (pattern/window_taps.hpp,
// fold_window_row): along W, position x of tap row kh adds its taps over kw
// descending from +0; then each image row adds its tap row's sums. A lane
// holds one position, so each sum keeps its order; positions no tap reaches
// are left alone, as the scalar loops leave them.
#pragma once

#include "kernels/bf16_rows.hpp"
#include <topos/core/isa.hpp>
#include <topos/core/tensor.hpp>

#include <cstddef>

namespace topos::detail {

struct FoldRowShape {
    std::size_t windows;         // windows in the row
    std::size_t kernel_rows;     // KH
    std::size_t kernel_columns;  // KW
    std::size_t pad_left;        // padding before the image's first column
    std::size_t width;           // the image's columns
};

// Tap (kh, kw) of window ow is taps[(kh * KW + kw) * stride + ow]; rows[kh] is
// the image row tap row kh adds onto, or null where it lies in padding.
template <Element T>
using FoldRow =
    void (*)(const FoldRowShape& shape, const T* taps, std::size_t stride, T* const* rows);

// The kernel for `shape` on `isa`, or null where there is none: AVX-512F
// only, and only where windows + KW - 1 and pad_left + width fit in one
// vector (16 floats, 8 doubles). Interior::RoundedToBf16 (float only, for a
// bf16 plan's election computed in float): the same sums, each tap row's sums
// along W (the first Fold's values) rounded to bf16's precision, kept in
// float, before they are added onto the image rows.
template <Element T, Interior interior = Interior::AsComputed>
FoldRow<T> fold_row_kernel(Isa isa, const FoldRowShape& shape);

// Every row of windows of one plane folded onto the image: window rows oh =
// 0 .. rows - 1, tap (kh, kw) of window (oh, ow) at taps[(kh * KW + kw) *
// stride + oh * windows + ow], onto image row oh + kh - pad_top where that
// lies in [0, image_rows). The image's rows are written whole: each is +0 plus
// its tap rows' sums over ascending oh, as fold_window_row adds them onto a
// zeroed plane; the sums are held in vectors meanwhile, not in the image.
struct FoldPlaneShape {
    FoldRowShape row;
    std::size_t rows;        // window rows
    std::size_t pad_top;     // padding above the image's first row
    std::size_t image_rows;  // the image's rows
};

template <Element T>
using FoldPlane = void (*)(const FoldPlaneShape& shape, const T* taps, std::size_t stride, T* out);

// The plane kernel for `shape` on `isa`, or null: where fold_row_kernel has a
// kernel for its rows, and the image has at most 32 rows. Its sums along W
// round as fold_row_kernel's do under `interior`.
template <Element T, Interior interior = Interior::AsComputed>
FoldPlane<T> fold_plane_kernel(Isa isa, const FoldPlaneShape& shape);

}  // namespace topos::detail
