// Log: elementwise natural logarithm, by the project's own log.
#include "core/exact_math.hpp"
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return exact::log(x); });
}

// d log(a) = da / a
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.div(c.adjoint, c.operands[0]);
}

HloValue lower(HloBuilder& build) {
    return build.unary("stablehlo.log", build.operand(0));
}

}  // namespace

OpInfo log_row() {
    return {Opcode::Log, "Log", 1, same_shape_unary, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
