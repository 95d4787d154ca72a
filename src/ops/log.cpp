// Log: elementwise natural logarithm, by the project's own log.
#include "hlo/builder.hpp"
#include "kernels/transcendental.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace log_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    exact_map(ExactFunction::Log, operands[0].data, out, operands[0].shape->elements());
}

// d log(a) = da / a
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.div(c.adjoint, c.operands[0]);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.log", build.operand(0));
}

}  // namespace log_op
}  // namespace

OpInfo log_row() {
    using namespace log_op;
    return {.opcode = Opcode::Log,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .bf16_table = true,
            .vjp = vjp,
            .lower = lower,
            .lane_function = ExactFunction::Log};
}

}  // namespace topos::detail
