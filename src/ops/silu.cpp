// Silu: elementwise a sigmoid(a), the sigmoid-weighted linear unit (swish), by
// the project's own silu (within about half an ulp, docs/exact-math.md), not
// the product of two rounded factors.
#include "core/exact_math.hpp"
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace silu_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return exact::silu(x); });
}

// d silu(a) = (s + y (1 - s)) da with s = sigmoid(a) and y = silu(a)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    // One builder call per statement: the recorded nodes come in one order.
    AdjointBuilder& b = c.build;
    const Ref s = b.unary(Opcode::Sigmoid, c.operands[0]);
    const Ref one = b.filled(c.node.shape(), 1.0);
    const Ref rest = b.sub(one, s);
    const Ref tail = b.mul(c.output, rest);
    const Ref slope = b.add(s, tail);
    contributions[0] = b.mul(c.adjoint, slope);
}

// x logistic(x): StableHLO has no silu.
HloValue lower(HloBuilder& build, const NodeView&) {
    const HloValue x = build.operand(0);
    const HloValue weight = build.unary("stablehlo.logistic", x);
    return build.multiply(x, weight);
}

}  // namespace silu_op
}  // namespace

OpInfo silu_row() {
    using namespace silu_op;
    return {.opcode = Opcode::Silu,
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
