// Elections: which matches a plan uses. A match is elected when none of its
// interior values (covered values it does not write) is declared or retained
// for the reverse scan, every reader of an interior value is inside an elected
// match that covers it too, and every reader of a named result it writes back
// runs after its root. Overlapping matches may share interior values only.
#pragma once

#include "pattern/match.hpp"
#include "plan/liveness.hpp"

#include <vector>

namespace topos::detail {

std::vector<Election> elect(const std::vector<Node>& nodes,
                            const Schedule& schedule,
                            std::vector<Match> matches,
                            const std::vector<bool>& declared,
                            const std::vector<bool>& retained);

}  // namespace topos::detail
