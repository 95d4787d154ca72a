// Exp: elementwise e^a, by the project's own exp (same bits in every build).
#include "core/exact_math.hpp"
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

}  // namespace

OpInfo exp_row() {
    return {Opcode::Exp, "Exp", 1, same_shape_unary, kernel<float>, kernel<double>, vjp};
}

}  // namespace topos::detail
