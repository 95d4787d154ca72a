// The ancestor closure of declared values: what an entry evaluates.
#pragma once

#include <topos/graph/node.hpp>

#include <span>
#include <vector>

namespace topos::detail {

// By node index: true for the declared nodes and everything they read, transitively.
std::vector<bool> ancestors(const std::vector<Node>& nodes, std::span<const Symbol> declared);

}  // namespace topos::detail
