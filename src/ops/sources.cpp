// The three sources: their values are payloads (parameters' from Parameters,
// inputs' from feeds or recorded defaults, leaves' recorded), so the rows carry
// no shape rule, kernel or derivative.
#include "ops/rows.hpp"

namespace topos::detail {

OpInfo parameter_row() {
    return {Opcode::Parameter, "Parameter", 0, nullptr, nullptr, nullptr, nullptr, nullptr};
}

OpInfo input_row() {
    return {Opcode::Input, "Input", 0, nullptr, nullptr, nullptr, nullptr, nullptr};
}

OpInfo leaf_row() {
    return {Opcode::Leaf, "Leaf", 0, nullptr, nullptr, nullptr, nullptr, nullptr};
}

}  // namespace topos::detail
