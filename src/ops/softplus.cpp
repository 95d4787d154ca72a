// Softplus: elementwise log(1 + e^a), stable at both ends.
#include "core/exact_math.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return exact::softplus(x); });
}

// d log(1 + e^a) = sigmoid(a) da
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.mul(c.adjoint, c.build.unary(Opcode::Sigmoid, c.operands[0]));
}

}  // namespace

OpInfo softplus_row() {
    return {Opcode::Softplus, "Softplus", 1, same_shape_unary, kernel<float>, kernel<double>, vjp};
}

}  // namespace topos::detail
