// Map regions: the plan grows them around what the catalog elected, rather
// than the catalog matching them at a root (the Map row has no matcher).
#pragma once

#include "ops/op_info.hpp"
#include "pattern/match.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace topos::detail {

// Map regions among the scheduled nodes that no elected match covers: each
// grows back from a root through same-shaped elementwise operands whose every
// reader is in the region and which are neither declared nor retained, and
// through the chains of BroadcastAlong that feed it (which several regions
// may share). Only regions of two or more members with at least
// `map_min_elements` elements each are offered (or of one, whose sums along
// the last axis it computes): below that, one loop saves nothing.
inline constexpr std::size_t map_min_elements = 1024;

// A chain of BroadcastAlong joins a region of at least this many elements
// (128 KiB of floats): a smaller repeated value is cheap to write and stays in
// cache for its readers, and small plans (the walk-throughs') keep their steps.
inline constexpr std::size_t spread_min_elements = 32768;

// The kernels a region's member runs: its opcode's reference kernels where
// both are null, else the ones a plan picked (a backend's that serves it).
struct MemberKernels {
    Kernel<float> f32 = nullptr;
    Kernel<double> f64 = nullptr;
    Kernel<bf16> b16 = nullptr;
};

using MemberKernelsOf = std::function<MemberKernels(const Node& member)>;

std::vector<Match> map_regions(const std::vector<Node>& nodes,
                               const std::vector<std::uint32_t>& order,
                               const std::vector<bool>& declared,
                               const std::vector<bool>& retained,
                               const std::vector<bool>& covered,
                               const MemberKernelsOf& kernels_of = nullptr);

}  // namespace topos::detail
