// Softplus: elementwise log(1 + e^a), stable at both ends.
#include "hlo/builder.hpp"
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace softplus_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    exact_map(ExactFunction::Softplus, operands[0].data, out, operands[0].shape->elements());
}

// d log(1 + e^a) = sigmoid(a) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.build.unary(Opcode::Sigmoid, c.operands[0]));
}

// softplus(x) = max(x, 0) + log1p(exp(-|x|)), stable at both ends.
HloValue lower(HloBuilder& build, const NodeView&) {
    const HloValue x = build.operand(0);
    const HloValue positive =
        build.binary("stablehlo.maximum", x, build.splat(0.0, build.shape(x)));
    const HloValue decay = build.unary(
        "stablehlo.exponential", build.unary("stablehlo.negate", build.unary("stablehlo.abs", x)));
    return build.add(positive, build.unary("stablehlo.log_plus_one", decay));
}

}  // namespace softplus_op
}  // namespace

OpInfo softplus_row() {
    using namespace softplus_op;
    return {.opcode = Opcode::Softplus,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower,
            .lane_function = ExactFunction::Softplus};
}

}  // namespace topos::detail
