// Sin: elementwise sine, by the project's own sin.
#include "core/exact_math.hpp"
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace sin_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return exact::sin(x); });
}

// d sin(a) = cos(a) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.build.unary(Opcode::Cos, c.operands[0]));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.sine", build.operand(0));
}

}  // namespace sin_op
}  // namespace

OpInfo sin_row() {
    using namespace sin_op;
    return {.opcode = Opcode::Sin,
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
