// Pow: elementwise a^b, by the project's own pow (IEEE special cases).
#include "core/exact_math.hpp"
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace pow_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    binary_map(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return exact::pow(a, b); });
}

// d a^b = b a^(b - 1) da + a^b log(a) db (the second term needs a > 0)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    AdjointBuilder& b = c.build;
    const Ref base = c.operands[0];
    const Ref exponent = c.operands[1];
    const Ref lowered = b.sub(exponent, b.filled(c.node.shape(), 1.0));
    const Ref slope = b.mul(exponent, b.apply(Opcode::Pow, {base, lowered}));
    contributions[0] = b.mul(c.adjoint, slope);
    contributions[1] = b.mul(c.adjoint, b.mul(c.output, b.unary(Opcode::Log, base)));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.binary("stablehlo.power", build.operand(0), build.operand(1));
}

}  // namespace pow_op
}  // namespace

OpInfo pow_row() {
    using namespace pow_op;
    return {.opcode = Opcode::Pow,
            .kind = OpKind::Elementwise,
            .arity = 2,
            .infer = same_shape_binary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
