// Gelu: elementwise a Phi(a), the exact (erf) form, by the project's own gelu.
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"
#include "ops/lowering.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace gelu_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    exact_map(ExactFunction::Gelu, operands[0].data, out, operands[0].shape->elements());
}

// d gelu(a) = Phi(a) + a phi(a), with Phi(a) = (1 + erf(a / sqrt 2)) / 2 and
// phi(a) = e^(-a^2 / 2) / sqrt(2 pi)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    // One builder call per statement: C++ leaves the order of a call's arguments
    // unspecified, and the recorded nodes must come in one order on every compiler.
    AdjointBuilder& b = c.build;
    const Shape& shape = c.node.shape();
    const Ref a = c.operands[0];
    const Ref half = b.filled(shape, 0.5);
    const Ref one = b.filled(shape, 1.0);
    const Ref scaled = b.mul(a, b.filled(shape, inverse_sqrt_two));
    const Ref cdf = b.mul(half, b.add(one, b.unary(Opcode::Erf, scaled)));
    const Ref exponent = b.neg(b.mul(half, b.unary(Opcode::Square, a)));
    const Ref bell = b.unary(Opcode::Exp, exponent);
    const Ref pdf = b.mul(bell, b.filled(shape, inverse_sqrt_two_pi));
    contributions[0] = b.mul(c.adjoint, b.add(cdf, b.mul(a, pdf)));
}

// gelu(x) = x Phi(x) = x erfc(-x / sqrt 2) / 2, accurate in both tails.
HloValue lower(HloBuilder& build, const NodeView&) {
    const HloValue x = build.operand(0);
    const Shape& shape = build.shape(x);
    const HloValue scaled = build.multiply(x, build.splat(-inverse_sqrt_two, shape));
    const HloValue tail = erfc(build, scaled);
    const HloValue phi = build.multiply(tail, build.splat(0.5, shape));
    return build.multiply(x, phi);
}

}  // namespace gelu_op
}  // namespace

OpInfo gelu_row() {
    using namespace gelu_op;
    return {.opcode = Opcode::Gelu,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower,
            .lane_function = ExactFunction::Gelu};
}

}  // namespace topos::detail
