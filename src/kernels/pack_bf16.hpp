// Packing bf16 operands into micro-kernel panels, straight from their strided
// views (no widened copy of a whole operand). Two layouts:
// - widened: float panels laid out as pack_a and pack_b lay out float ones
//   (out[panel][p][lane]), each value widened exactly, for the exact float tiles;
// - k pairs: bf16 panels whose depths p and p + 1 of a lane sit side by side
//   (out[panel][p / 2][lane][2]), the operand layout of vdpbf16ps, an odd
//   depth ending with a zero pair half.
// A lane is a row of A or a column of B; edge panels are padded with zeros
// that reach only discarded outputs.
#pragma once

#include "kernels/pack.hpp"
#include <topos/core/bf16.hpp>

#include <cstddef>

namespace topos::detail {

// Lanes [lane_first, lane_first + lanes) and depths [depth_first, depth_first
// + depth) of a plane, in panels of `panel_width` lanes. For A the lanes are
// rows, for B columns (side says which).
struct PanelBlock {
    PackSide side;
    std::size_t lane_first;
    std::size_t lanes;
    std::size_t depth_first;
    std::size_t depth;
    std::size_t panel_width;
};

// Elements of a packed block's panels: each panel's depth padded to `step`.
std::size_t packed_elements(const PanelBlock& block, std::size_t step);

// The block as float panels: out[panel][p][lane] = float(value).
void pack_widened(Plane<bf16> plane, const PanelBlock& block, float* out);

// Writes out[2 j] = even[j] and out[2 j + 1] = odd[j] for j < count: two
// depths of a run of side-by-side lanes as k pairs.
using PairInterleave = void (*)(const bf16* even, const bf16* odd, std::size_t count, bf16* out);

// The block as k-pair panels: out[panel][p / 2][lane][p % 2], depth rounded up
// to even with zeros; `interleave` pairs the depths of lanes that lie side by
// side (row-major B, a transposed A).
void pack_pairs(PairInterleave interleave, Plane<bf16> plane, const PanelBlock& block, bf16* out);

}  // namespace topos::detail
