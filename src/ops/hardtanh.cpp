// Hardtanh: elementwise a clamped to [-1, 1] (torch.nn.Hardtanh); NaN stays NaN.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace hardtanh_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    unary_map(operands, out, [](Arithmetic<T> x) {
        return x < Arithmetic<T>{-1} ? Arithmetic<T>{-1}
                                     : (x > Arithmetic<T>{1} ? Arithmetic<T>{1} : x);
    });
}

// d hardtanh(a) = [-1 < a < 1] da (0 at the corners, as in PyTorch)
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Shape& shape = c.node.shape();
    const Ref above =
        c.build.compare(c.operands[0], c.build.filled(shape, -1.0), Comparison::Greater);
    const Ref below = c.build.compare(c.operands[0], c.build.filled(shape, 1.0), Comparison::Less);
    const Ref inside = c.build.mul(above, below);
    contributions[0] = c.build.mul(c.adjoint, inside);
}

// min(a, 1) then max(., -1): NaN propagates through both, and -0 stays -0.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const HloValue upper =
        build.binary("stablehlo.minimum", build.operand(0), build.splat(1.0, node.shape()));
    return build.binary("stablehlo.maximum", upper, build.splat(-1.0, node.shape()));
}

}  // namespace hardtanh_op
}  // namespace

OpInfo hardtanh_row() {
    using namespace hardtanh_op;
    return {.opcode = Opcode::Hardtanh,
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
