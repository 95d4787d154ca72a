// Neg: elementwise -a.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace neg_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return -x; });
}

// d(-a) = -da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.neg(c.adjoint);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.negate", build.operand(0));
}

}  // namespace neg_op
}  // namespace

OpInfo neg_row() {
    using namespace neg_op;
    return {.opcode = Opcode::Neg,
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
