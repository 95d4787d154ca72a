// Which forward values the reverse scan reads. Derived, not declared: each
// scheduled node's derivative rule runs once against a probe builder that notes
// the forward values used as operands. The backward posture retains those.
#pragma once

#include <topos/graph/node.hpp>

#include <vector>

namespace topos::detail {

// By node index: true where some scheduled node's rule reads the value.
std::vector<bool> values_read_by_scan(const std::vector<Node>& nodes,
                                      const std::vector<bool>& scheduled);

}  // namespace topos::detail
