// A node as the op table's rules see it (NodeView), made from a recorded Node.
#pragma once

#include "ops/op_info.hpp"
#include <topos/graph/node.hpp>

namespace topos::detail {

static_assert(Node::max_operands == max_operands, "a node holds every operand of any opcode");

inline NodeView view_of(const Node& node) {
    return {node.opcode(), node.attributes(), node.shape()};
}

}  // namespace topos::detail
