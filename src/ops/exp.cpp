// Exp: elementwise e^a, by the project's own exp (same bits in every build).
#include "core/exact_math.hpp"
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return exact::exp(x); });
}

// d exp(a) = exp(a) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.output);
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.exponential", build.operand(0));
}

}  // namespace

OpInfo exp_row() {
    return {Opcode::Exp, "Exp", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
