// Log1p: elementwise log(1 + a), accurate near 0.
#include "core/exact_math.hpp"
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace log1p_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return exact::log1p(x); });
}

// d log(1 + a) = da / (1 + a)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref one_plus = c.build.add(c.build.filled(c.node.shape(), 1.0), c.operands[0]);
    contributions[0] = c.build.div(c.adjoint, one_plus);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.log_plus_one", build.operand(0));
}

}  // namespace log1p_op
}  // namespace

OpInfo log1p_row() {
    using namespace log1p_op;
    return {.opcode = Opcode::Log1p,
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
