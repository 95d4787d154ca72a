// Cos: elementwise cosine, by the project's own cos.
#include "core/exact_math.hpp"
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace cos_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return exact::cos(x); });
}

// d cos(a) = -sin(a) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref slope = c.build.unary(Opcode::Sin, c.operands[0]);
    contributions[0] = c.build.neg(c.build.mul(c.adjoint, slope));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.cosine", build.operand(0));
}

}  // namespace cos_op
}  // namespace

OpInfo cos_row() {
    using namespace cos_op;
    return {.opcode = Opcode::Cos,
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
