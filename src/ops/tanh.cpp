// Tanh: elementwise hyperbolic tangent, by the project's own tanh.
#include "hlo/builder.hpp"
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace tanh_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    exact_map(ExactFunction::Tanh, operands[0].data, out, operands[0].shape->elements());
}

// d tanh(a) = (1 - tanh(a)^2) da, as g * (1 - y * y) with y = tanh(a)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref ones = c.build.filled(c.node.shape(), 1.0);
    const Ref slope = c.build.sub(ones, c.build.mul(c.output, c.output));
    contributions[0] = c.build.mul(c.adjoint, slope);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.tanh", build.operand(0));
}

}  // namespace tanh_op
}  // namespace

OpInfo tanh_row() {
    using namespace tanh_op;
    return {.opcode = Opcode::Tanh,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower,
            .lane_function = ExactFunction::Tanh};
}

}  // namespace topos::detail
