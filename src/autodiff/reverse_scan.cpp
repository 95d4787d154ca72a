// reverse_scan: from the target down to node 0, each node with an adjoint runs
// its row's derivative rule, and each operand's contributions are summed in the
// order they arrive, whichever builder computes or records them.
#include "autodiff/reverse_scan.hpp"

#include <array>

namespace topos::detail {

std::vector<std::optional<Ref>> reverse_scan(const std::vector<Node>& nodes,
                                             std::uint32_t target,
                                             Ref seed,
                                             AdjointBuilder& build) {
    std::vector<std::optional<Ref>> adjoints(static_cast<std::size_t>(target) + 1);
    adjoints[target] = seed;
    std::array<Ref, Node::max_operands> operands{};
    std::array<std::optional<Ref>, Node::max_operands> contributions{};
    for (std::uint32_t index = target + 1; index-- > 0;) {
        if (!adjoints[index] || is_source(nodes[index].opcode())) {
            continue;
        }
        const Node node = nodes[index];  // a copy: recording may reallocate `nodes`
        const std::size_t arity = node.operands().size();
        for (std::size_t i = 0; i < arity; ++i) {
            operands[i] = Ref{node.operands()[i]};
            contributions[i].reset();
        }
        const VjpContext context{view_of(node),
                                 std::span<const Ref>(operands.data(), arity),
                                 Ref{index},
                                 *adjoints[index],
                                 build};
        op_info(node.opcode()).vjp(context, std::span(contributions.data(), arity));
        for (std::size_t i = 0; i < arity; ++i) {
            if (!contributions[i]) {
                continue;
            }
            std::optional<Ref>& into = adjoints[node.operands()[i]];
            into = into ? build.add(*into, *contributions[i]) : *contributions[i];
        }
    }
    return adjoints;
}

}  // namespace topos::detail
