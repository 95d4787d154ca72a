// Packing bf16 operands into float panels (widened) and k-pair panels; see
// pack_bf16.hpp. Each layout reads the source along whichever axis is
// contiguous: along a panel's lanes where they are (row-major B, a transposed
// A), else lane by lane along the depth.
#include "kernels/pack_bf16.hpp"

#include "kernels/gemm_blocking.hpp"

#include <algorithm>
#include <vector>

namespace topos::detail {
namespace {

// The block's values as (lane, depth) pairs, whatever the plane's layout.
struct LaneView {
    const bf16* first;  // lane 0, depth 0 of the block
    std::ptrdiff_t lane_stride;
    std::ptrdiff_t depth_stride;

    const bf16* at(std::size_t lane, std::size_t p) const {
        return first + static_cast<std::ptrdiff_t>(lane) * lane_stride +
               static_cast<std::ptrdiff_t>(p) * depth_stride;
    }
};

LaneView lanes_of(Plane<bf16> plane, const PanelBlock& block) {
    if (block.side == PackSide::A) {  // lanes are rows
        return {
            plane.at(block.lane_first, block.depth_first), plane.row_stride, plane.column_stride};
    }
    return {plane.at(block.depth_first, block.lane_first), plane.column_stride, plane.row_stride};
}

float widen(bf16 value) {
    return static_cast<float>(value);
}

// Depths [depth_first, depth_end) of one panel of `filled` lanes (of `width`)
// as floats.
void widen_panel(const LaneView& view,
                 std::size_t filled,
                 std::size_t depth_first,
                 std::size_t depth_end,
                 std::size_t width,
                 float* out) {
    if (view.lane_stride == 1) {  // each depth's lanes are one run
        for (std::size_t p = depth_first; p < depth_end; ++p) {
            const bf16* run = view.at(0, p);
            float* to = out + p * width;
            for (std::size_t j = 0; j < filled; ++j) {
                to[j] = widen(run[j]);
            }
            std::fill(to + filled, to + width, 0.0F);
        }
        return;
    }
    for (std::size_t j = 0; j < filled; ++j) {  // each lane's depths are one run (or neither)
        const bf16* lane = view.at(j, 0);
        for (std::size_t p = depth_first; p < depth_end; ++p) {
            out[p * width + j] = widen(lane[static_cast<std::ptrdiff_t>(p) * view.depth_stride]);
        }
    }
    for (std::size_t p = depth_first; p < depth_end && filled < width; ++p) {
        std::fill(out + p * width + filled, out + (p + 1) * width, 0.0F);
    }
}

// Depths [depth_first, depth_end) of one panel of `filled` lanes as k pairs
// (depth_first even): depths p and p + 1 of lane j at out[p * width + 2 j] and
// the next place, a missing last depth as zero.
void pair_panel(PairInterleave interleave,
                const LaneView& view,
                std::size_t filled,
                std::size_t depth_first,
                std::size_t depth_end,
                std::size_t width,
                bf16* out) {
    for (std::size_t p = depth_first; p < depth_end; p += 2) {
        bf16* to = out + p * width;
        const bf16* even = view.at(0, p);
        const bool has_odd = p + 1 < depth_end;
        if (has_odd && view.lane_stride == 1) {
            interleave(even, view.at(0, p + 1), filled, to);
        } else if (has_odd) {
            const bf16* odd = view.at(0, p + 1);
            for (std::size_t j = 0; j < filled; ++j) {
                const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(j) * view.lane_stride;
                to[2 * j] = even[at];
                to[2 * j + 1] = odd[at];
            }
        } else {
            for (std::size_t j = 0; j < filled; ++j) {
                to[2 * j] = even[static_cast<std::ptrdiff_t>(j) * view.lane_stride];
                to[2 * j + 1] = bf16{};
            }
        }
        std::fill(to + 2 * filled, to + 2 * width, bf16{});
    }
}

// Calls pack(panel view, first lane, filled lanes, depth_first, depth_end)
// for every panel of the block and range of its depths. Where each depth's
// lanes are one run of the source (row-major B, a transposed A), a few depths
// at a time across every panel, so the runs are read along their length
// rather than one panel's width per depth stride, the lines of the next few
// depths asked for ahead (the packing is what reads B from memory); else each
// panel whole.
template <class PackPanel>
void for_panels(const LaneView& view, const PanelBlock& block, PackPanel&& pack) {
    constexpr std::size_t depths_at_once = 8;  // even: k pairs stay whole
    const std::size_t step = view.lane_stride == 1 ? depths_at_once : block.depth;
    for (std::size_t p = 0; p < block.depth; p += step) {
        const std::size_t depth_end = std::min(block.depth, p + step);
        const std::size_t ahead_end = std::min(block.depth, depth_end + step);
        for (std::size_t first = 0; first < block.lanes; first += block.panel_width) {
            const LaneView panel{view.at(first, 0), view.lane_stride, view.depth_stride};
            if (view.lane_stride == 1) {  // the next depths' lines, while these pack
                for (std::size_t q = depth_end; q < ahead_end; ++q) {
                    __builtin_prefetch(panel.at(0, q));
                }
            }
            pack(panel, first, std::min(block.panel_width, block.lanes - first), p, depth_end);
        }
    }
}

// Panels whose lanes each run along the depth (row-major A, a transposed B):
// each panel's lanes widened, run by run, into a small float block of this
// thread's, which the float packing then transposes into the panel (in
// vector registers where the processor has AVX2), instead of scattering
// values one by one.
void widen_rows_then_pack(const LaneView& view, const PanelBlock& block, float* out) {
    thread_local std::vector<float> rows;
    rows.resize(block.panel_width * block.depth);
    for (std::size_t first = 0; first < block.lanes; first += block.panel_width) {
        const std::size_t filled = std::min(block.panel_width, block.lanes - first);
        // A cache line of every lane in turn: the lanes' misses overlap.
        constexpr std::size_t depths_per_line = 32;
        for (std::size_t p_first = 0; p_first < block.depth; p_first += depths_per_line) {
            const std::size_t p_end = std::min(block.depth, p_first + depths_per_line);
            for (std::size_t j = 0; j < filled; ++j) {
                const bf16* run = view.at(first + j, 0);
                float* to = rows.data() + j * block.depth;
                for (std::size_t p = p_first; p < p_end; ++p) {
                    to[p] = widen(run[p]);
                }
            }
        }
        const Plane<float> widened{rows.data(), static_cast<std::ptrdiff_t>(block.depth), 1};
        pack_a(widened, 0, filled, 0, block.depth, block.panel_width, out + first * block.depth);
    }
}

}  // namespace

std::size_t packed_elements(const PanelBlock& block, std::size_t step) {
    return blocking::round_up(block.lanes, block.panel_width) *
           blocking::round_up(block.depth, step);
}

void pack_widened(Plane<bf16> plane, const PanelBlock& block, float* out) {
    const LaneView view = lanes_of(plane, block);
    if (view.depth_stride == 1 && view.lane_stride != 1) {
        widen_rows_then_pack(view, block, out);
        return;
    }
    for_panels(view,
               block,
               [&](const LaneView& panel,
                   std::size_t first,
                   std::size_t filled,
                   std::size_t depth_first,
                   std::size_t depth_end) {
                   widen_panel(panel,
                               filled,
                               depth_first,
                               depth_end,
                               block.panel_width,
                               out + first * block.depth);
               });
}

void pack_pairs(PairInterleave interleave, Plane<bf16> plane, const PanelBlock& block, bf16* out) {
    const LaneView view = lanes_of(plane, block);
    const std::size_t padded_depth = blocking::round_up(block.depth, 2);
    for_panels(view,
               block,
               [&](const LaneView& panel,
                   std::size_t first,
                   std::size_t filled,
                   std::size_t depth_first,
                   std::size_t depth_end) {
                   pair_panel(interleave,
                              panel,
                              filled,
                              depth_first,
                              depth_end,
                              block.panel_width,
                              out + first * padded_depth);
               });
}

}  // namespace topos::detail
