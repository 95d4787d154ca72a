// Sign: elementwise -1, 0 or 1 (zeros keep their sign; NaN stays NaN).
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace sign_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](T x) { return x > T{0} ? T{1} : (x < T{0} ? T{-1} : x); });
}

// sign is piecewise constant: no derivative flows through it
void vjp(const VjpContext&, std::span<std::optional<Ref>>) {}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.unary("stablehlo.sign", build.operand(0));
}

}  // namespace sign_op
}  // namespace

OpInfo sign_row() {
    using namespace sign_op;
    return {.opcode = Opcode::Sign,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = same_shape_unary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
