// Mul: elementwise a * b.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace mul_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    binary_map(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a * b; });
}

// d(a b) = b da + a db
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.operands[1]);
    contributions[1] = c.build.mul(c.adjoint, c.operands[0]);
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.binary("stablehlo.multiply", build.operand(0), build.operand(1));
}

// x * 1 and 1 * x are x.
std::optional<std::uint32_t> identity(const NodeView&, const IdentityFacts& facts) {
    if (facts.is_one(facts.operand(1))) {
        return facts.operand(0);
    }
    if (facts.is_one(facts.operand(0))) {
        return facts.operand(1);
    }
    return std::nullopt;
}

}  // namespace mul_op
}  // namespace

OpInfo mul_row() {
    using namespace mul_op;
    return {.opcode = Opcode::Mul,
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
