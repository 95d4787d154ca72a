// describe()'s shared table: one row per node (index, opcode, operands and
// attributes, shape), columns widened to their longest cell, and the summary
// that counts nodes, parameters, inputs and leaves.
#include "graph/describe.hpp"

#include "graph/spec.hpp"

#include <algorithm>
#include <sstream>

namespace topos::detail {
namespace {

constexpr std::size_t index_width = 4;
constexpr std::size_t opcode_width = 15;
constexpr std::size_t operands_width = 19;
constexpr std::size_t shape_width = 13;
constexpr std::size_t gap = 2;

template <class Field>
std::size_t column_width(std::span<const DescribeRow> rows, std::size_t minimum, Field field) {
    std::size_t width = minimum;
    for (const DescribeRow& row : rows) {
        const std::size_t length = (row.*field).size();
        if (length + gap > minimum) {
            width = std::max(width, length + gap);
        }
    }
    return width;
}

void pad_right(std::string& line, const std::string& cell, std::size_t width) {
    line += cell;
    line.append(width - std::min(width, cell.size()), ' ');
}

}  // namespace

DescribeRow describe_row(const Node& node) {
    std::ostringstream operands;
    for (std::size_t i = 0; i < node.operands().size(); ++i) {
        operands << (i ? ", " : "") << node.operands()[i];
    }
    if (node.attributes().index() != 0) {
        operands << ' ' << node.attributes();
    }
    return {std::to_string(node.index()),
            std::string(name_of(node.opcode())),
            operands.str(),
            node.shape().str(),
            {}};
}

std::string render_table(std::span<const DescribeRow> rows) {
    std::size_t index = index_width;
    for (const DescribeRow& row : rows) {
        index = std::max(index, row.index.size());
    }
    const std::size_t opcode = column_width(rows, opcode_width, &DescribeRow::opcode);
    const std::size_t operands = column_width(rows, operands_width, &DescribeRow::operands);
    const std::size_t shape = column_width(rows, shape_width, &DescribeRow::shape);
    std::string text;
    for (const DescribeRow& row : rows) {
        std::string line(index - std::min(index, row.index.size()), ' ');
        line += row.index;
        line.append(gap, ' ');
        pad_right(line, row.opcode, opcode);
        pad_right(line, row.operands, operands);
        if (row.tail.empty()) {
            line += row.shape;
        } else {
            pad_right(line, row.shape, shape);
            line += row.tail;
        }
        text += line;
        text += '\n';
    }
    return text;
}

std::string count_summary(std::span<const Node> nodes) {
    std::size_t parameters = 0;
    std::size_t inputs = 0;
    std::size_t leaves = 0;
    for (const Node& node : nodes) {
        parameters += node.opcode() == Opcode::Parameter;
        inputs += node.opcode() == Opcode::Input;
        leaves += node.opcode() == Opcode::Leaf;
    }
    std::string summary = counted(nodes.size(), "node", "nodes") + ", " +
                          counted(parameters, "parameter", "parameters") + ", " +
                          counted(inputs, "input", "inputs");
    if (leaves > 0) {
        summary += ", " + counted(leaves, "leaf", "leaves");
    }
    return summary;
}

}  // namespace topos::detail
