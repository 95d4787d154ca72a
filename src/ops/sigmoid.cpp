// Sigmoid: elementwise 1 / (1 + e^-a), by the project's own sigmoid.
#include "core/exact_math.hpp"
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return exact::sigmoid(x); });
}

// d sigmoid(a) = y (1 - y) da with y = sigmoid(a), written (g y) - (g y) y
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Ref scaled = c.build.mul(c.adjoint, c.output);
    contributions[0] = c.build.sub(scaled, c.build.mul(scaled, c.output));
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.logistic", build.operand(0));
}

}  // namespace

OpInfo sigmoid_row() {
    return {
        Opcode::Sigmoid, "Sigmoid", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
