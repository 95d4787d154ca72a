// Maximum: elementwise max(a, b); a NaN on either side propagates, as in StableHLO.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace maximum_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    binary_map(
        operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return (a >= b || a != a) ? a : b; });
}

// d max(a, b) = [a >= b] da + [a < b] db: a tie sends the whole adjoint to a
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref to_a = c.build.mul(
        c.adjoint, c.build.compare(c.operands[0], c.operands[1], Comparison::GreaterEqual));
    contributions[0] = to_a;
    contributions[1] = c.build.sub(c.adjoint, to_a);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.binary("stablehlo.maximum", build.operand(0), build.operand(1));
}

}  // namespace maximum_op
}  // namespace

OpInfo maximum_row() {
    using namespace maximum_op;
    return {.opcode = Opcode::Maximum,
            .kind = OpKind::Elementwise,
            .arity = 2,
            .infer = same_shape_binary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower,
            .picks_an_operand_element = true};
}

}  // namespace topos::detail
