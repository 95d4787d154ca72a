// Rsqrt: elementwise 1 / sqrt(a), as a division by the correctly rounded root.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <cmath>

namespace topos::detail {
namespace {
namespace rsqrt_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return Arithmetic<T>{1} / std::sqrt(x); });
}

// d a^(-1/2) = -a^(-3/2) / 2 da, as -(g y) / (a + a)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref scaled = c.build.mul(c.adjoint, c.output);
    contributions[0] = c.build.neg(c.build.div(scaled, c.build.add(c.operands[0], c.operands[0])));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.rsqrt", build.operand(0));
}

}  // namespace rsqrt_op
}  // namespace

OpInfo rsqrt_row() {
    using namespace rsqrt_op;
    return {.opcode = Opcode::Rsqrt,
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
