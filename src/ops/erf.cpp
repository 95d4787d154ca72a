// Erf: elementwise error function, by the project's own erf.
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"
#include "ops/lowering.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace erf_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    exact_map(ExactFunction::Erf, operands[0].data, out, operands[0].shape->elements());
}

// d erf(a) = 2 / sqrt(pi) e^(-a^2) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref bell =
        c.build.unary(Opcode::Exp, c.build.neg(c.build.unary(Opcode::Square, c.operands[0])));
    const Ref slope = c.build.mul(c.build.filled(c.node.shape(), two_over_sqrt_pi), bell);
    contributions[0] = c.build.mul(c.adjoint, slope);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return erf(build, build.operand(0));
}

}  // namespace erf_op
}  // namespace

OpInfo erf_row() {
    using namespace erf_op;
    return {.opcode = Opcode::Erf,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower,
            .lane_function = ExactFunction::Erf};
}

}  // namespace topos::detail
