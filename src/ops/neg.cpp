// Neg: elementwise -a.
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

}  // namespace

OpInfo neg_row() {
    return {Opcode::Neg, "Neg", 1, same_shape_unary, kernel<float>, kernel<double>, vjp};
}

}  // namespace topos::detail
