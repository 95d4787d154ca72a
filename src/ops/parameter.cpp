// Parameter: a trainable source: its value comes from Parameters, its recorded payload
// is the initial value. Sources have no operands, so the row carries
// no shape rule, kernel, derivative or lowering.
#include "ops/rows.hpp"

namespace topos::detail {

OpInfo parameter_row() {
    return {.opcode = Opcode::Parameter, .kind = OpKind::Source};
}

}  // namespace topos::detail
