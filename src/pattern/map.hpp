// Map regions: the plan grows them around what the catalog elected, rather
// than the catalog matching them at a root (the Map row has no matcher).
#pragma once

#include "pattern/match.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topos::detail {

// Map regions among the scheduled nodes that no elected match covers: each
// grows back from a root through same-shaped elementwise operands whose every
// reader is in the region and which are neither declared nor retained. Only
// regions of two or more members with at least `map_min_elements` elements
// each are offered: below that, one loop saves nothing.
inline constexpr std::size_t map_min_elements = 1024;
std::vector<Match> map_regions(const std::vector<Node>& nodes,
                               const std::vector<std::uint32_t>& order,
                               const std::vector<bool>& declared,
                               const std::vector<bool>& retained,
                               const std::vector<bool>& covered);

}  // namespace topos::detail
