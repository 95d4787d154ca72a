// Neg: elementwise -a.
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return -x; });
}

// d(-a) = -da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.neg(c.adjoint);
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.negate", build.operand(0));
}

}  // namespace

OpInfo neg_row() {
    return {Opcode::Neg, "Neg", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
