// Reading the taps of image windows, and summing taps back onto an image, in
// the orders the unfused operations use, for the fused kernels of the window
// patterns. Every loop here is one plane (one image, one channel) at a time.
#pragma once

#include "core/divide_rounding_up.hpp"
#include "kernels/bf16_rows.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/fold_row.hpp"
#include "pattern/structure.hpp"
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstring>

namespace topos::detail {

// The Maximum opcode's rule: the first operand unless the second is greater,
// and a NaN first operand wins.
template <Element T>
T maximum_of(T a, T b) {
    return (a >= b || a != a) ? a : b;
}

// The taps of window (oh, ow) of one image plane, row-major in the window,
// zero where they fall in padding.
template <Element T>
void gather_taps(
    const WindowGeometry& g, const T* pixels, std::size_t oh, std::size_t ow, T* taps) {
    for (std::size_t kh = 0; kh < g.size[0]; ++kh) {
        const std::size_t y = oh * g.step[0] + kh * g.dilation[0];
        const bool row_inside = y >= g.pad_before[0] && y - g.pad_before[0] < g.extent[0];
        for (std::size_t kw = 0; kw < g.size[1]; ++kw) {
            const std::size_t x = ow * g.step[1] + kw * g.dilation[1];
            const bool inside =
                row_inside && x >= g.pad_before[1] && x - g.pad_before[1] < g.extent[1];
            *taps++ =
                inside ? pixels[(y - g.pad_before[0]) * g.extent[1] + (x - g.pad_before[1])] : T{0};
        }
    }
}

// Short copies and fills in 32-byte pieces (fixed-size memcpy, which compilers
// inline), without the call into memmove or memset that a plain loop becomes:
// window rows are a few dozen elements, and their padding one or two.
template <Element T>
inline constexpr std::size_t piece_elements = 32 / sizeof(T);

template <Element T>
void copy_short(const T* from, std::size_t count, T* to) {
    constexpr std::size_t piece = piece_elements<T>;
    if (count < piece) {
        copy_run(from, count, to);
        return;
    }
    for (std::size_t i = 0; i + piece < count; i += piece) {
        std::memcpy(to + i, from + i, 32);
    }
    std::memcpy(to + count - piece, from + count - piece, 32);
}

template <Element T>
void zero_short(T* to, std::size_t count) {
    static constexpr T zeros[piece_elements<T>] = {};
    constexpr std::size_t piece = piece_elements<T>;
    if (count < piece) {
        copy_run(zeros, count, to);
        return;
    }
    for (std::size_t i = 0; i + piece < count; i += piece) {
        std::memcpy(to + i, zeros, 32);
    }
    std::memcpy(to + count - piece, zeros, 32);
}

// Whether the windows tile the image: step == size, no dilation, no padding,
// every window inside it. Then every image position lies in at most one
// window, and a window's taps along a row are adjacent.
inline bool windows_tile(const WindowGeometry& g) {
    for (std::size_t axis = 0; axis < 2; ++axis) {
        if (g.pad_before[axis] != 0 || g.dilation[axis] != 1 || g.step[axis] != g.size[axis] ||
            g.count[axis] * g.size[axis] > g.extent[axis]) {
            return false;
        }
    }
    return true;
}

// The taps of window row oh of one image plane, zero where they fall in
// padding: tap (kh, kw) of window ow at taps[(kh * size[1] + kw) * stride + ow].
template <Element T>
void gather_window_row(
    const WindowGeometry& g, const T* pixels, std::size_t oh, T* taps, std::size_t stride) {
    const std::size_t windows = g.count[1];
    for (std::size_t kh = 0; kh < g.size[0]; ++kh) {
        const std::size_t y = oh * g.step[0] + kh * g.dilation[0];
        const bool row_inside = y >= g.pad_before[0] && y - g.pad_before[0] < g.extent[0];
        const T* line = pixels + (row_inside ? (y - g.pad_before[0]) * g.extent[1] : 0);
        for (std::size_t kw = 0; kw < g.size[1]; ++kw) {
            T* column = taps + (kh * g.size[1] + kw) * stride;
            // Windows [first, last) read inside the image: x = ow * step + kw * dilation
            // lies in [pad_before, pad_before + extent).
            const std::size_t offset = kw * g.dilation[1];
            const std::size_t low = g.pad_before[1];
            const std::size_t high = g.pad_before[1] + g.extent[1];
            const auto windows_before = [&](std::size_t position) -> std::size_t {
                if (offset >= position) {
                    return 0;
                }
                const std::size_t span = position - offset;
                return divide_rounding_up(span, g.step[1]);
            };
            std::size_t first = windows_before(low);
            std::size_t last = windows_before(high);
            last = row_inside ? std::min(last, windows) : 0;
            first = std::min(first, last);
            zero_short(column, first);
            if (g.step[1] == 1 && last > first) {
                copy_short(line + (first + offset - low), last - first, column + first);
            } else {
                for (std::size_t ow = first; ow < last; ++ow) {
                    column[ow] = line[ow * g.step[1] + offset - low];
                }
            }
            zero_short(column + last, windows - last);
        }
    }
}

// Whether windows step and dilate by 1 along both axes (most convolutions):
// their taps are then runs of a padded copy of the plane.
inline bool unit_steps(const WindowGeometry& g) {
    return g.step[0] == 1 && g.step[1] == 1 && g.dilation[0] == 1 && g.dilation[1] == 1;
}

// For unit_steps windows: the extent of the plane they read, zero-padded,
// (count + size - 1) along each axis.
inline std::array<std::size_t, 2> padded_extent(const WindowGeometry& g) {
    return {g.count[0] + g.size[0] - 1, g.count[1] + g.size[1] - 1};
}

// The image plane zero-padded to padded_extent(g), row-major, into `padded`.
template <Element T>
void pad_plane(const WindowGeometry& g, const T* pixels, T* padded) {
    const auto [rows, columns] = padded_extent(g);
    const std::size_t left = std::min(g.pad_before[1], columns);
    const std::size_t width = g.extent[1] < columns - left ? g.extent[1] : columns - left;
    for (std::size_t r = 0; r < rows; ++r) {
        T* line = padded + r * columns;
        if (r < g.pad_before[0] || r - g.pad_before[0] >= g.extent[0]) {
            zero_short(line, columns);
            continue;
        }
        zero_short(line, left);
        copy_short(pixels + (r - g.pad_before[0]) * g.extent[1], width, line + left);
        zero_short(line + left + width, columns - left - width);
    }
}

// For unit_steps windows, window rows first .. first + count - 1 of one plane
// from its padded copy: tap (kh, kw) of window (oh, ow) at
// taps[(kh * size[1] + kw) * stride + (oh - first) * count[1] + ow]. Every
// run is count[1] elements, with no padding to mind.
template <Element T>
void gather_unit_step_rows(const WindowGeometry& g,
                           const T* padded,
                           std::size_t first,
                           std::size_t count,
                           T* taps,
                           std::size_t stride) {
    const std::size_t columns = padded_extent(g)[1];
    for (std::size_t kh = 0; kh < g.size[0]; ++kh) {
        for (std::size_t kw = 0; kw < g.size[1]; ++kw) {
            T* column = taps + (kh * g.size[1] + kw) * stride;
            for (std::size_t oh = first; oh < first + count; ++oh) {
                copy_short(padded + (oh + kh) * columns + kw,
                           g.count[1],
                           column + (oh - first) * g.count[1]);
            }
        }
    }
}

// fold_window_row by the vector kernel of kernels/fold_row.hpp, where one
// fits (unit steps, rows of at most one vector): whether it ran.
template <Element T, Interior interior>
bool fold_window_row_in_lanes(
    const WindowGeometry& g, std::size_t oh, const T* taps, std::size_t stride, T* out) {
    constexpr std::size_t most_rows = 8;
    const FoldRowShape shape{g.count[1], g.size[0], g.size[1], g.pad_before[1], g.extent[1]};
    if (!unit_steps(g) || g.size[0] > most_rows) {
        return false;
    }
    const FoldRow<T> fold = fold_row_kernel<T, interior>(isa(), shape);
    if (fold == nullptr) {
        return false;
    }
    std::array<T*, most_rows> rows{};
    for (std::size_t kh = 0; kh < g.size[0]; ++kh) {
        const std::size_t y = oh + kh;
        const bool inside = y >= g.pad_before[0] && y - g.pad_before[0] < g.extent[0];
        rows[kh] = inside ? out + (y - g.pad_before[0]) * g.extent[1] : nullptr;
    }
    fold(shape, taps, stride, rows.data());
    return true;
}

// Sums the taps of one row of windows (oh) back onto an image plane, as the
// two Fold nodes of an unfused plan do, and crops it as their Narrows do:
//  - along W first: for tap row kh, a position adds its taps over windows ow
//    ascending, from +0 (the loop runs kw descending, ow ascending: the same
//    order for each position, with ow innermost so that it vectorises);
//  - then along H: an image row adds those sums over window rows oh
//    ascending, from +0, so the caller zeroes `out` (the cropped
//    [extent[0], extent[1]] plane) and folds rows oh = 0, 1, ... in order.
// Tap (kh, kw) of window ow is taps[(kh * size[1] + kw) * stride + ow];
// `line` has room for size[0] * folded_width elements. RoundedToBf16 rounds
// the sums along W, the first Fold's values, before they are added along H.
template <Element T, Interior interior = Interior::AsComputed>
void fold_window_row(const WindowGeometry& g,
                     std::size_t folded_width,
                     std::size_t oh,
                     const T* taps,
                     std::size_t stride,
                     T* line,
                     T* out) {
    static_assert(interior == Interior::AsComputed || std::same_as<T, float>);
    if (fold_window_row_in_lanes<T, interior>(g, oh, taps, stride, out)) {
        return;
    }
    const std::size_t windows = g.count[1];
    const std::size_t step = g.step[1];
    zero_short(line, g.size[0] * folded_width);
    for (std::size_t kh = 0; kh < g.size[0]; ++kh) {
        for (std::size_t kw = g.size[1]; kw-- > 0;) {
            T* positions = line + kh * folded_width + kw * g.dilation[1];
            const T* column = taps + (kh * g.size[1] + kw) * stride;
            if (step == 1) {
                for (std::size_t ow = 0; ow < windows; ++ow) {
                    positions[ow] += column[ow];
                }
            } else {
                for (std::size_t ow = 0; ow < windows; ++ow) {
                    positions[ow * step] += column[ow];
                }
            }
        }
    }
    if constexpr (interior == Interior::RoundedToBf16) {
        round_in_float(line, g.size[0] * folded_width);
    }
    for (std::size_t kh = 0; kh < g.size[0]; ++kh) {
        const std::size_t y = oh * g.step[0] + kh * g.dilation[0];
        if (y < g.pad_before[0] || y - g.pad_before[0] >= g.extent[0]) {
            continue;
        }
        T* row = out + (y - g.pad_before[0]) * g.extent[1];
        const T* sums = line + kh * folded_width + g.pad_before[1];
        for (std::size_t x = 0; x < g.extent[1]; ++x) {
            row[x] += sums[x];
        }
    }
}

// Every row of windows of one plane summed back onto it, as fold_window_row
// does row after row onto the zeroed plane: tap (kh, kw) of window (oh, ow)
// at taps[(kh * size[1] + kw) * stride + oh * count[1] + ow]. By the plane
// kernel of kernels/fold_row.hpp where one fits.
template <Element T, Interior interior = Interior::AsComputed>
void fold_window_plane(const WindowGeometry& g,
                       std::size_t folded_width,
                       const T* taps,
                       std::size_t stride,
                       T* line,
                       T* out) {
    if (unit_steps(g)) {
        const FoldPlaneShape shape{{g.count[1], g.size[0], g.size[1], g.pad_before[1], g.extent[1]},
                                   g.count[0],
                                   g.pad_before[0],
                                   g.extent[0]};
        if (const FoldPlane<T> fold = fold_plane_kernel<T, interior>(isa(), shape)) {
            fold(shape, taps, stride, out);
            return;
        }
    }
    zero_short(out, g.extent[0] * g.extent[1]);
    for (std::size_t oh = 0; oh < g.count[0]; ++oh) {
        fold_window_row<T, interior>(
            g, folded_width, oh, taps + oh * g.count[1], stride, line, out);
    }
}

// Calls plane(p) for every plane p < planes, shared among the pool's threads
// when there is enough work (`elements` per plane); each plane is computed
// alone, so the split changes no bit.
template <class F>
void for_each_plane(std::size_t planes, std::size_t elements, F&& plane) {
    for_each_range(planes, elements, [&](std::size_t begin, std::size_t end) {
        for (std::size_t p = begin; p < end; ++p) {
            plane(p);
        }
    });
}

}  // namespace topos::detail
