// The bf16 kernel of the rows that ask for a table (OpInfo::bf16_table): the
// opcode's widened_kernel run once over every bf16 bit pattern, its results
// kept, and each node's elements read from them, so a node's bits are
// widened_kernel's at the cost of a lookup an element.
#include "kernels/bf16_table.hpp"
#include "ops/op_info.hpp"

#include <array>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace topos::detail {
namespace {

const Bf16Table& table_of(const NodeView& node) {
    static std::array<std::once_flag, opcode_count> filled;
    static std::array<std::unique_ptr<const Bf16Table>, opcode_count> tables;
    const auto at = static_cast<std::size_t>(node.opcode());
    std::call_once(filled[at], [&] {
        const std::vector<bf16> patterns = Bf16Table::every_pattern();
        const Shape shape{patterns.size()};
        const View<bf16> operand{patterns.data(), &shape};
        std::vector<bf16> results(patterns.size());
        widened_kernel(NodeView(node.opcode(), node.attributes(), shape),
                       std::span<const View<bf16>>(&operand, 1),
                       results.data());
        tables[at] = std::make_unique<const Bf16Table>(std::move(results));
    });
    return *tables[at];
}

}  // namespace

void tabulated_kernel(const NodeView& node, std::span<const View<bf16>> operands, bf16* out) {
    table_of(node).map(operands[0].data, out, operands[0].shape->elements());
}

}  // namespace topos::detail
