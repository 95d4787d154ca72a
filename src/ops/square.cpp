// Square: elementwise a * a.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace square_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return x * x; });
}

// d a^2 = 2 a da, as g (a + a)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.build.add(c.operands[0], c.operands[0]));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.multiply(build.operand(0), build.operand(0));
}

}  // namespace square_op
}  // namespace

OpInfo square_row() {
    using namespace square_op;
    return {.opcode = Opcode::Square,
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
