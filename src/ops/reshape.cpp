// Reshape: the same elements in the same row-major order under a new shape.
#include "hlo/builder.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace reshape_op {

Shape infer(const ShapeCheck& check) {
    const Shape& target = check.attributes<ReshapeAttributes>().shape;
    check.require(target.elements() == check.operand(0).elements(),
                  "the new shape " + target.str() + " holds " + std::to_string(target.elements()) +
                      " elements, the operand " + std::to_string(check.operand(0).elements()) +
                      "; a reshape must keep the element count");
    return target;
}

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    std::copy_n(operands[0].data, operands[0].shape->elements(), out);
}

// The adjoint takes the operand's shape back.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.reshape(c.adjoint, c.build.shape(c.operands[0]));
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    return build.reshape(build.operand(0), node.shape());
}

// A reshape to the node's own shape is its operand (the simplifier checks the shapes).
std::optional<std::uint32_t> identity(const NodeView&, const IdentityFacts& facts) {
    return facts.operand(0);
}

}  // namespace reshape_op
}  // namespace

OpInfo reshape_row() {
    using namespace reshape_op;
    return {.opcode = Opcode::Reshape,
            .kind = OpKind::Layout,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower,
            .identity = identity,
            .keeps_a_uniform_fill = true,
            .reuses_operand_buffer = true};
}

}  // namespace topos::detail
