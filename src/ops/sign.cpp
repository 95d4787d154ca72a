// Sign: elementwise -1, 0 or 1 (zeros keep their sign; NaN stays NaN).
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return x > T{0} ? T{1} : (x < T{0} ? T{-1} : x); });
}

// sign is piecewise constant: no derivative flows through it
void vjp(const VjpContext&, std::span<std::optional<Ref>>) {}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.sign", build.operand(0));
}

}  // namespace

OpInfo sign_row() {
    return {Opcode::Sign, "Sign", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
