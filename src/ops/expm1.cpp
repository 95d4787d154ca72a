// Expm1: elementwise e^a - 1, accurate near 0.
#include "core/exact_math.hpp"
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return exact::expm1(x); });
}

// d (e^a - 1) = e^a da = (y + 1) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref slope = c.build.add(c.output, c.build.filled(c.node.shape(), 1.0));
    contributions[0] = c.build.mul(c.adjoint, slope);
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.exponential_minus_one", build.operand(0));
}

}  // namespace

OpInfo expm1_row() {
    return {Opcode::Expm1, "Expm1", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
