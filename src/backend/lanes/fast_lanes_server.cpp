// The Fast lanes backend (TOPOS_ENABLE_FAST_LANES): exp, tanh, sigmoid, erf, gelu, log
// and softplus of float tensors under Numerics::Fast, by the float functions
// of kernels/fast_math.hpp in vector lanes, each element within its
// function's documented distance of the exact result (docs/exact-math.md).
// Double tensors keep the exact functions, already at vector speed.
#include "kernels/fast_transcendental.hpp"
#include "plan/backend_seam.hpp"

#include <optional>

namespace topos::detail {
namespace {

std::optional<ExactFunction> function_of(Opcode opcode) {
    switch (opcode) {
        case Opcode::Exp:
            return ExactFunction::Exp;
        case Opcode::Tanh:
            return ExactFunction::Tanh;
        case Opcode::Sigmoid:
            return ExactFunction::Sigmoid;
        case Opcode::Erf:
            return ExactFunction::Erf;
        case Opcode::Gelu:
            return ExactFunction::Gelu;
        case Opcode::Log:
            return ExactFunction::Log;
        case Opcode::Softplus:
            return ExactFunction::Softplus;
        default:
            return std::nullopt;
    }
}

bool serves(const Node& node, std::span<const Shape>, Precision precision) {
    return precision == Precision::F32 && function_of(node.opcode()).has_value();
}

void kernel_f32(const NodeView& node, std::span<const View<float>> operands, float* out) {
    fast_map(*function_of(node.opcode()), operands[0].data, out, operands[0].shape->elements());
}

// Never given a double tensor (serves declines them): the exact functions.
void kernel_f64(const NodeView& node, std::span<const View<double>> operands, double* out) {
    exact_map(*function_of(node.opcode()), operands[0].data, out, operands[0].shape->elements());
}

}  // namespace

const Server& fast_lanes_server() {
    static const Server server{"fast-lanes",
                               Fidelity::Approximate,
                               {"Exp", "Tanh", "Sigmoid", "Erf", "Gelu", "Log", "Softplus"},
                               serves,
                               kernel_f32,
                               kernel_f64};
    return server;
}

}  // namespace topos::detail
