// Add: elementwise a + b.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace add_op {

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    binary_map(operands, out, [](T a, T b) { return a + b; });
}

// d(a + b) = da + db
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.adjoint;
    contributions[1] = c.adjoint;
}

HloValue lower(HloBuilder& build, const NodeView&) {
    return build.binary("stablehlo.add", build.operand(0), build.operand(1));
}

}  // namespace add_op
}  // namespace

OpInfo add_row() {
    using namespace add_op;
    return {.opcode = Opcode::Add,
            .kind = OpKind::Elementwise,
            .arity = 2,
            .infer = same_shape_binary,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
