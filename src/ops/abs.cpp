// Abs: elementwise |a|.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <cmath>

namespace topos::detail {
namespace {
namespace abs_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return std::fabs(x); });
}

// d|a| = sign(a) da (0 at a = 0)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.build.unary(Opcode::Sign, c.operands[0]));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.abs", build.operand(0));
}

}  // namespace abs_op
}  // namespace

OpInfo abs_row() {
    using namespace abs_op;
    return {.opcode = Opcode::Abs,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
