// Rsqrt: elementwise 1 / sqrt(a), as a division by the correctly rounded root.
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <cmath>

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return T{1} / std::sqrt(x); });
}

// d a^(-1/2) = -a^(-3/2) / 2 da, as -(g y) / (a + a)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref scaled = c.build.mul(c.adjoint, c.output);
    contributions[0] = c.build.neg(c.build.div(scaled, c.build.add(c.operands[0], c.operands[0])));
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.rsqrt", build.operand(0));
}

}  // namespace

OpInfo rsqrt_row() {
    return {Opcode::Rsqrt, "Rsqrt", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
