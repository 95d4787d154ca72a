// Node's constructor (at most max_operands operands) and the text of a node
// (one row of describe()'s table) and of a symbol (%index).
#include "graph/describe.hpp"
#include "ops/op_info.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/node.hpp>

#include <algorithm>
#include <array>
#include <ostream>
#include <span>

namespace topos {

Node::Node(Symbol symbol,
           Opcode opcode,
           std::span<const std::uint32_t> operands,
           Attributes attributes,
           Shape shape,
           DType dtype)
    : symbol_(symbol),
      opcode_(opcode),
      dtype_(dtype),
      operand_count_(static_cast<std::uint8_t>(operands.size())),
      attributes_(std::move(attributes)),
      shape_(std::move(shape)) {
    if (operands.size() > max_operands) {
        throw Error("a node reads at most " + std::to_string(max_operands) + " operands");
    }
    std::copy(operands.begin(), operands.end(), operands_.begin());
}

std::ostream& operator<<(std::ostream& out, const Node& node) {
    const detail::DescribeRow row = detail::describe_row(node);
    std::string line = detail::render_table(std::span<const detail::DescribeRow>(&row, 1));
    line.pop_back();  // the trailing newline
    return out << line;
}

std::size_t depth_of(const Node& node, std::span<const Node> nodes) {
    const auto depth = detail::op_info(node.opcode()).depth;
    if (depth == nullptr) {
        return 0;
    }
    std::array<Shape, Node::max_operands> operands;
    for (std::size_t i = 0; i < node.operands().size(); ++i) {
        operands[i] = nodes[node.operands()[i]].shape();
    }
    return depth(std::span<const Shape>(operands.data(), node.operands().size()));
}

std::ostream& operator<<(std::ostream& out, const Symbol& symbol) {
    return out << '%' << symbol.index();
}

}  // namespace topos
