// LogSumExp: log(sum(exp(a))) along one axis, removing it, computed stably as
// m + log(sum(exp(a - m))) with m the maximum along the axis (the sum in the
// striped order), so it stays finite at extreme logits.
#include "ops/log_sum_exp.hpp"

#include "ops/lowering.hpp"
#include "ops/reduce.hpp"
#include "ops/rows.hpp"

namespace topos::detail {

namespace {
namespace log_sum_exp_op {

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    log_sum_exp_rows(operands[0].data,
                     *operands[0].shape,
                     node.attributes_as<AxisAttributes>().axis,
                     out,
                     ExactExpAndLog{});
}

// d lse(a) = softmax(a) da = exp(a - lse(a)) g, repeated along the axis
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    AdjointBuilder& b = c.build;
    const std::size_t axis = c.node.attributes_as<AxisAttributes>().axis;
    const std::size_t extent = b.shape(c.operands[0])[axis];
    const Ref softmax =
        b.unary(Opcode::Exp, b.sub(c.operands[0], b.broadcast_along(c.output, axis, extent)));
    contributions[0] = b.mul(softmax, b.broadcast_along(c.adjoint, axis, extent));
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    return log_sum_exp(build, build.operand(0), node.attributes_as<AxisAttributes>().axis);
}

}  // namespace log_sum_exp_op
}  // namespace

OpInfo log_sum_exp_row() {
    using namespace log_sum_exp_op;
    return {.opcode = Opcode::LogSumExp,
            .kind = OpKind::General,
            .arity = 1,
            .infer = reduce_axis_shape,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower,
            .exp_log_rows = ExpLogRows::LogSumExp};
}

}  // namespace topos::detail
