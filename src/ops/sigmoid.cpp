// Sigmoid: elementwise 1 / (1 + e^-a), by the project's own sigmoid.
#include "hlo/builder.hpp"
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace sigmoid_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    exact_map(ExactFunction::Sigmoid, operands[0].data, out, operands[0].shape->elements());
}

// d sigmoid(a) = y (1 - y) da with y = sigmoid(a), written (g y) - (g y) y
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref scaled = c.build.mul(c.adjoint, c.output);
    contributions[0] = c.build.sub(scaled, c.build.mul(scaled, c.output));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.logistic", build.operand(0));
}

}  // namespace sigmoid_op
}  // namespace

OpInfo sigmoid_row() {
    using namespace sigmoid_op;
    return {.opcode = Opcode::Sigmoid,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower,
            .lane_function = ExactFunction::Sigmoid};
}

}  // namespace topos::detail
