// Sin: elementwise sine, by the project's own sin.
#include "core/exact_math.hpp"
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return exact::sin(x); });
}

// d sin(a) = cos(a) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.build.unary(Opcode::Cos, c.operands[0]));
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.sine", build.operand(0));
}

}  // namespace

OpInfo sin_row() {
    return {Opcode::Sin, "Sin", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
