// Div: elementwise a / b (IEEE division: x / 0 is an infinity or NaN).
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace div_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    binary_map(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a / b; });
}

// d(a / b) = da / b - (a / b) db / b
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.div(c.adjoint, c.operands[1]);
    contributions[1] = c.build.neg(c.build.div(c.build.mul(c.adjoint, c.output), c.operands[1]));
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.binary("stablehlo.divide", build.operand(0), build.operand(1));
}

// x / 1 is x.
std::optional<std::uint32_t> identity(const NodeView&, const IdentityFacts& facts) {
    if (facts.is_one(facts.operand(1))) {
        return facts.operand(0);
    }
    return std::nullopt;
}

}  // namespace div_op
}  // namespace

OpInfo div_row() {
    using namespace div_op;
    return {.opcode = Opcode::Div,
            .kind = OpKind::Elementwise,
            .arity = 2,
            .infer = same_shape_binary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower,
            .identity = identity};
}

}  // namespace topos::detail
