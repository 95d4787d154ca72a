// Floor: elementwise the largest integer not above a (zeros, infinities and NaN
// stay as they are). IEEE 754 defines it exactly (roundToIntegralTowardNegative),
// so std::floor gives the same bits on every platform.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <cmath>

namespace topos::detail {
namespace {
namespace floor_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) { return std::floor(x); });
}

// floor is piecewise constant: no derivative flows through it
void vjp(const VjpContext&, std::span<std::optional<Ref>>) {}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.floor", build.operand(0));
}

}  // namespace floor_op
}  // namespace

OpInfo floor_row() {
    using namespace floor_op;
    return {.opcode = Opcode::Floor,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
