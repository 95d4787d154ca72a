// The reverse scan, written once for both roads. From the target down to node 0,
// every node that received an adjoint asks its row's derivative rule for its
// operands' contributions; a value with several readers sums them in the order
// they arrive (descending reader index, then operand position). The builder
// decides whether that computes tensors (Run::backward) or records nodes
// (Tape::differentiate), so both roads perform the same operations in the same
// order and agree bit for bit.
#pragma once

#include "graph/node_view.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace topos::detail {

// `nodes` may grow while the scan runs (a recording builder appends to it);
// only the nodes up to `target` are visited.
std::vector<std::optional<Ref>> reverse_scan(const std::vector<Node>& nodes,
                                             std::uint32_t target,
                                             Ref seed,
                                             AdjointBuilder& build);

}  // namespace topos::detail
