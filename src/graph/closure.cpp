// ancestors: one backward pass over the nodes, from the last to the first,
// marking every operand of a marked node, starting from the declared values.
#include "graph/closure.hpp"

namespace topos::detail {

std::vector<bool> ancestors(const std::vector<Node>& nodes, std::span<const Symbol> declared) {
    std::vector<bool> reached(nodes.size(), false);
    for (const Symbol& symbol : declared) {
        reached[symbol.index()] = true;
    }
    for (std::size_t index = nodes.size(); index-- > 0;) {
        if (reached[index]) {
            for (std::uint32_t operand : nodes[index].operands()) {
                reached[operand] = true;
            }
        }
    }
    return reached;
}

}  // namespace topos::detail
