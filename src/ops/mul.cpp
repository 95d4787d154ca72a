// Mul: elementwise a * b.
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    binary_map(operands, out, [](T a, T b) { return a * b; });
}

// d(a b) = b da + a db
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.operands[1]);
    contributions[1] = c.build.mul(c.adjoint, c.operands[0]);
}

HloValue lower(HloBuilder& build) {
    return build.binary("stablehlo.multiply", build.operand(0), build.operand(1));
}

}  // namespace

OpInfo mul_row() {
    return {Opcode::Mul, "Mul", 2, same_shape_binary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
