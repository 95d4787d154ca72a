// ParameterLayout::slot, the slot a parameter's symbol names (SymbolError for a
// symbol of another network or a node that is not a parameter), and
// same_slots, which tells whether two layouts hold the same parameters.
#include "graph/parameter_layout.hpp"

#include <topos/core/error.hpp>

#include <algorithm>
#include <string>

namespace topos::detail {

std::size_t ParameterLayout::slot(Symbol symbol) const {
    const bool ours = symbol.index() < slot_of_node.size() &&
                      std::find(lineage.begin(), lineage.end(), symbol.lineage()) != lineage.end();
    if (!ours || slot_of_node[symbol.index()] < 0 ||
        symbols[static_cast<std::size_t>(slot_of_node[symbol.index()])] != symbol) {
        throw SymbolError("symbol %" + std::to_string(symbol.index()) +
                          " does not name a parameter of the network these parameters were "
                          "made for");
    }
    return static_cast<std::size_t>(slot_of_node[symbol.index()]);
}

bool ParameterLayout::same_slots(const ParameterLayout& other) const {
    return this == &other || symbols == other.symbols;
}

}  // namespace topos::detail
