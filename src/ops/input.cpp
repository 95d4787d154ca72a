// Input: a source fed per run: its value comes from a feed, else its recorded
// payload (the default). Sources have no operands, so the row carries
// no shape rule, kernel, derivative or lowering.
#include "ops/rows.hpp"

namespace topos::detail {

OpInfo input_row() {
    return {.opcode = Opcode::Input, .kind = OpKind::Source};
}

}  // namespace topos::detail
