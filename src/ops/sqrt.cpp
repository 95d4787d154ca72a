// Sqrt: elementwise square root (IEEE: correctly rounded).
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <cmath>

namespace topos::detail {
namespace {
namespace sqrt_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return std::sqrt(x); });
}

// d sqrt(a) = da / (2 sqrt(a)), as g / (y + y)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.div(c.adjoint, c.build.add(c.output, c.output));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.sqrt", build.operand(0));
}

}  // namespace sqrt_op
}  // namespace

OpInfo sqrt_row() {
    using namespace sqrt_op;
    return {.opcode = Opcode::Sqrt,
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
