// Simplification at lowering (Entry::simplify): a node that is exactly one of
// its operands (x * 1, 1 * x, x / 1, x + (-0), -0 + x, x - (+0), a reshape to
// its operand's own shape, a permute that undoes the permute it reads) stands
// for that operand, and a node that computes what an earlier node computes
// (same opcode, stand-ins of its operands, attributes, shape, and for leaves
// the same payload bits) stands for the earlier one. Every fold is an identity
// of IEEE arithmetic and every kernel is a pure function of its operands, so a
// simplified plan computes the same bits.
#pragma once

#include "graph/spec.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topos::detail {

struct Simplified {
    // By node index: the node with its operands replaced by their stand-ins.
    std::vector<Node> nodes;
    // By node index: the node whose value this node's value is (itself if kept).
    std::vector<std::uint32_t> stand_in;
    std::size_t identities_folded = 0;
    std::size_t duplicates_merged = 0;
};

// Simplifies the nodes `considered` marks (a closure: every operand of a
// considered node is considered); the others are copied unchanged.
template <Element T>
Simplified simplify(const Spec<T>& spec, const std::vector<bool>& considered);

}  // namespace topos::detail
