// Kept so that programs written against topos 0.1 keep compiling: the opcodes
// belong to the op table's layer, declared in <topos/ops/opcode.hpp>.
#pragma once

#include <topos/ops/opcode.hpp>
