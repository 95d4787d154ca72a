// Abs: elementwise |a|.
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <cmath>

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return std::fabs(x); });
}

// d|a| = sign(a) da (0 at a = 0)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.build.unary(Opcode::Sign, c.operands[0]));
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.abs", build.operand(0));
}

}  // namespace

OpInfo abs_row() {
    return {Opcode::Abs, "Abs", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
