// LogSoftmax: a - logsumexp(a) along one axis (the axis stays), fused so it is
// stable at extreme logits: each output is a - (m + log(sum(exp(a - m)))).
#include "ops/log_sum_exp.hpp"
#include "ops/lowering.hpp"
#include "ops/rows.hpp"

namespace topos::detail {

namespace {
namespace log_softmax_op {

Shape infer(const ShapeCheck& check) {
    check.require_axis(0, check.attributes<AxisAttributes>().axis);
    return check.operand(0);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    log_softmax_rows(operands[0].data,
                     *operands[0].shape,
                     node.attributes_as<AxisAttributes>().axis,
                     out,
                     ExactExpAndLog{});
}

// d log_softmax(a) = g - softmax(a) sum(g), with softmax(a) = exp(y)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    AdjointBuilder& b = c.build;
    const std::size_t axis = c.node.attributes_as<AxisAttributes>().axis;
    const std::size_t extent = c.node.shape()[axis];
    const Ref total = b.broadcast_along(b.sum(c.adjoint, axis), axis, extent);
    contributions[0] = b.sub(c.adjoint, b.mul(b.unary(Opcode::Exp, c.output), total));
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    const HloValue x = build.operand(0);
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    const Shape& shape = build.shape(x);
    const HloValue normaliser = log_sum_exp(build, x, axis);
    return build.subtract(
        x, build.broadcast_in_dim(normaliser, shape, axes_except(shape.rank(), axis)));
}

}  // namespace log_softmax_op
}  // namespace

OpInfo log_softmax_row() {
    using namespace log_softmax_op;
    return {.opcode = Opcode::LogSoftmax,
            .kind = OpKind::General,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower,
            .exp_log_rows = ExpLogRows::LogSoftmax};
}

}  // namespace topos::detail
