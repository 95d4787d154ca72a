// The Fast lanes backend (TOPOS_ENABLE_FAST_LANES): exp, tanh, sigmoid, erf, gelu, log
// and softplus of float tensors under Numerics::Fast, by the float functions
// of kernels/fast_math.hpp in vector lanes, each element within its
// function's documented distance of the exact result (docs/exact-math.md);
// and LogSumExp and LogSoftmax with those exps and that log, within the bound
// that follows from them. Double tensors keep the exact functions, already at
// vector speed.
#include "kernels/fast_transcendental.hpp"
#include "ops/log_sum_exp.hpp"
#include "plan/backend_seam.hpp"

#include <optional>

namespace topos::detail {
namespace {

// The lane function an elementwise row computes, as its row declares it.
std::optional<ExactFunction> function_of(Opcode opcode) {
    return op_info(opcode).lane_function;
}

// What a row over exps and a log computes, as its row declares it.
std::optional<ExpLogRows> rows_of(Opcode opcode) {
    return op_info(opcode).exp_log_rows;
}

bool is_row_function(Opcode opcode) {
    return rows_of(opcode).has_value();
}

bool serves(const Node& node, std::span<const Shape>, Precision precision) {
    return precision == Precision::F32 &&
           (function_of(node.opcode()).has_value() || is_row_function(node.opcode()));
}

template <Element T, class ExpAndLog>
void rows(const NodeView& node, const View<T>& x, T* out, const ExpAndLog& functions) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    if (rows_of(node.opcode()) == ExpLogRows::LogSumExp) {
        log_sum_exp_rows(x.data, *x.shape, axis, out, functions);
    } else {
        log_softmax_rows(x.data, *x.shape, axis, out, functions);
    }
}

void kernel_f32(const NodeView& node, std::span<const View<float>> operands, float* out) {
    if (is_row_function(node.opcode())) {
        rows(node, operands[0], out, FastExpAndLog{});
        return;
    }
    fast_map(*function_of(node.opcode()), operands[0].data, out, operands[0].shape->elements());
}

// Never given a double tensor (serves declines them): the exact functions.
void kernel_f64(const NodeView& node, std::span<const View<double>> operands, double* out) {
    if (is_row_function(node.opcode())) {
        rows(node, operands[0], out, ExactExpAndLog{});
        return;
    }
    exact_map(*function_of(node.opcode()), operands[0].data, out, operands[0].shape->elements());
}

}  // namespace

const Server& fast_lanes_server() {
    static const Server server{
        "fast-lanes",
        Fidelity::Approximate,
        {"Exp", "Tanh", "Sigmoid", "Erf", "Gelu", "Log", "Softplus", "LogSumExp", "LogSoftmax"},
        serves,
        kernel_f32,
        kernel_f64};
    return server;
}

}  // namespace topos::detail
