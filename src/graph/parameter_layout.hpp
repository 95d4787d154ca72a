// Which nodes of which network a network's parameter slots stand for: one slot
// per Parameter node, in node order. Made once when a tape is sealed and shared
// by every Parameters value made from that network.
#pragma once

#include <topos/graph/symbol.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topos::detail {

struct ParameterLayout {
    std::vector<std::uint64_t> lineage;  // the network's tape and its ancestors
    std::vector<Symbol> symbols;         // one per slot, in node order
    std::vector<std::int32_t> slot_of_node;

    // The slot of `symbol`; throws SymbolError when it names no parameter here.
    std::size_t slot(Symbol symbol) const;
    bool same_slots(const ParameterLayout& other) const;
};

}  // namespace topos::detail
