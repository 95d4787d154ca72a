// Select: elementwise `mask != 0 ? a : b` (the where of numpy); the mask is any
// real tensor, typically a Compare.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace select_op {

Shape infer(const ShapeCheck& check) {
    check.attributes<NoAttributes>();
    check.require(check.operand(0) == check.operand(1) && check.operand(1) == check.operand(2),
                  "the mask and both branches must have one shape; broadcast them first "
                  "(the Value spelling where(mask, a, b) does)");
    return check.operand(1);
}

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    const T* mask = operands[0].data;
    const T* a = operands[1].data;
    const T* b = operands[2].data;
    const std::size_t count = operands[0].shape->elements();
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = mask[i] != T{0} ? a[i] : b[i];
    }
}

// each branch receives the adjoint where it was chosen, zero elsewhere
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref zeros = c.build.filled(c.node.shape(), 0.0);
    const Ref mask = c.operands[0];
    contributions[1] = c.build.apply(Opcode::Select, {mask, c.adjoint, zeros});
    contributions[2] = c.build.apply(Opcode::Select, {mask, zeros, c.adjoint});
}

// The real mask becomes an i1 predicate: mask != 0 (a NaN mask chooses a).
HloValue lower(HloBuilder& build, const NodeView&) {
    const HloValue mask = build.operand(0);
    const HloValue chosen =
        build.compare(HloComparison::NE, mask, build.splat(0.0, build.shape(mask)));
    return build.select(chosen, build.operand(1), build.operand(2));
}

}  // namespace select_op
}  // namespace

OpInfo select_row() {
    using namespace select_op;
    return {.opcode = Opcode::Select,
            .kind = OpKind::Elementwise,
            .arity = 3,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
