// Sign: elementwise -1, 0 or 1 (zeros keep their sign; NaN stays NaN).
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace sign_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) {
        return x > Arithmetic<T>{0} ? Arithmetic<T>{1}
                                    : (x < Arithmetic<T>{0} ? Arithmetic<T>{-1} : x);
    });
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
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
