// Leaf: a constant source: its value is its recorded payload. Sources have no operands, so the row
// carries no shape rule, kernel, derivative or lowering.
#include "ops/rows.hpp"

namespace topos::detail {

OpInfo leaf_row() {
    return {.opcode = Opcode::Leaf, .kind = OpKind::Source};
}

}  // namespace topos::detail
