// Exp: elementwise e^a, by the project's own exp (same bits in every build).
#include "hlo/builder.hpp"
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace exp_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    exact_map(ExactFunction::Exp, operands[0].data, out, operands[0].shape->elements());
}

// d exp(a) = exp(a) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.output);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.exponential", build.operand(0));
}

}  // namespace exp_op
}  // namespace

OpInfo exp_row() {
    using namespace exp_op;
    return {.opcode = Opcode::Exp,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower,
            .lane_function = ExactFunction::Exp};
}

}  // namespace topos::detail
