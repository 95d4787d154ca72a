// Concat: two operands joined along one axis; every other extent must agree.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace concat_op {

Shape infer(const ShapeCheck& check) {
    const std::size_t axis = check.attributes<AxisAttributes>().axis;
    check.require_axis(0, axis);
    const Shape& a = check.operand(0);
    const Shape& b = check.operand(1);
    check.require(a.rank() == b.rank() && a.with_extent(axis, 0) == b.with_extent(axis, 0),
                  "the operands must agree on every axis but " + std::to_string(axis) +
                      "; reshape or broadcast them first");
    return a.with_extent(axis, a[axis] + b[axis]);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    const AxisSplit left = split_at(*operands[0].shape, axis);
    const AxisSplit right = split_at(*operands[1].shape, axis);
    for (std::size_t o = 0; o < left.outer; ++o) {
        out = copy_run(
            operands[0].data + o * left.extent * left.inner, left.extent * left.inner, out);
        out = copy_run(
            operands[1].data + o * right.extent * right.inner, right.extent * right.inner, out);
    }
}

// each operand receives its own part of the adjoint
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const std::size_t axis = c.node.attributes_as<AxisAttributes>().axis;
    const std::size_t first = c.build.shape(c.operands[0])[axis];
    const std::size_t second = c.build.shape(c.operands[1])[axis];
    contributions[0] = c.build.narrow(c.adjoint, NarrowAttributes{axis, 0, first});
    contributions[1] = c.build.narrow(c.adjoint, NarrowAttributes{axis, first, second});
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    return build.concatenate({build.operand(0), build.operand(1)},
                             node.attributes_as<AxisAttributes>().axis);
}

}  // namespace concat_op
}  // namespace

OpInfo concat_row() {
    using namespace concat_op;
    return {.opcode = Opcode::Concat,
            .kind = OpKind::Layout,
            .arity = 2,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
