// One constructor per op row, each defined in its own file of src/ops/,
// declared here from the opcode list. op_table.cpp assembles them in the
// list's order.
#pragma once

#include "ops/op_info.hpp"

namespace topos::detail {

#define TOPOS_OPCODE(enumerator, row) OpInfo row##_row();
#include <topos/ops/opcodes.def>

}  // namespace topos::detail
