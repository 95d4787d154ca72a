// The aligned table every describe() prints: index (right-aligned, 4 wide),
// opcode (15), operands and attributes (19), shape, and optionally a last
// column (a plan's liveness words). Widths are minimums: a longer cell widens its
// column for the whole table, keeping two spaces before the next column.
#pragma once

#include <topos/graph/node.hpp>

#include <span>
#include <string>
#include <vector>

namespace topos::detail {

struct DescribeRow {
    std::string index;
    std::string opcode;
    std::string operands;
    std::string shape;
    std::string tail;  // empty when the table has no last column
};

DescribeRow describe_row(const Node& node);

std::string render_table(std::span<const DescribeRow> rows);

// "6 nodes, 1 parameter, 2 inputs" (and leaves, when there are any).
std::string count_summary(std::span<const Node> nodes);

}  // namespace topos::detail
