// Add: elementwise a + b.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace add_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    binary_map(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a + b; });
}

// d(a + b) = da + db
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.adjoint;
    contributions[1] = c.adjoint;
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.binary("stablehlo.add", build.operand(0), build.operand(1));
}

// x + -0 and -0 + x are x (x + +0 is not: -0 + +0 is +0).
std::optional<std::uint32_t> identity(const NodeView&, const IdentityFacts& facts) {
    if (facts.is_zero(facts.operand(1), true)) {
        return facts.operand(0);
    }
    if (facts.is_zero(facts.operand(0), true)) {
        return facts.operand(1);
    }
    return std::nullopt;
}

}  // namespace add_op
}  // namespace

OpInfo add_row() {
    using namespace add_op;
    return {.opcode = Opcode::Add,
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
