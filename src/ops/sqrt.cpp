// Sqrt: elementwise square root (IEEE: correctly rounded).
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <cmath>

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return std::sqrt(x); });
}

// d sqrt(a) = da / (2 sqrt(a)), as g / (y + y)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.div(c.adjoint, c.build.add(c.output, c.output));
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.sqrt", build.operand(0));
}

}  // namespace

OpInfo sqrt_row() {
    return {Opcode::Sqrt, "Sqrt", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
