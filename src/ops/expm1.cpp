// Expm1: elementwise e^a - 1, accurate near 0.
#include "core/exact_math.hpp"
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace expm1_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return exact::expm1(x); });
}

// d (e^a - 1) = e^a da = (y + 1) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref slope = c.build.add(c.output, c.build.filled(c.node.shape(), 1.0));
    contributions[0] = c.build.mul(c.adjoint, slope);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.exponential_minus_one", build.operand(0));
}

}  // namespace expm1_op
}  // namespace

OpInfo expm1_row() {
    using namespace expm1_op;
    return {.opcode = Opcode::Expm1,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
