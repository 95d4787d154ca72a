// Convert: elementwise a rounded once to the nearest value of another element
// type (float, double or bf16; ties to even, NaN kept and quiet, past the
// type's range an infinity), kept in the tape's own type: a float tape computes
// in bf16 where its values pass through Convert to bf16 (x.rounded_to<bf16>()).
// Rounding to a type at least as wide as the tape's changes nothing.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <variant>

namespace topos::detail {
namespace {
namespace convert_op {

// U's nearest value to x, as a T (exact: the nearest is a T when U is
// narrower, and x itself when U is at least as wide).
template <class U, Element T>
T rounded(T x) {
    return static_cast<T>(static_cast<U>(x));
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    switch (node.attributes_as<ConvertAttributes>().to) {
        case ElementType::F32:
            unary_map(operands, out, [](T x) { return rounded<float>(x); });
            return;
        case ElementType::F64:
            unary_map(operands, out, [](T x) { return rounded<double>(x); });
            return;
        case ElementType::BF16:
            unary_map(operands, out, [](T x) { return rounded<bf16>(x); });
            return;
    }
}

Shape infer(const ShapeCheck& check) {
    check.require(std::holds_alternative<ConvertAttributes>(check.all_attributes()),
                  "Convert needs the element type to round to: x.rounded_to<bf16>(), or "
                  "ConvertAttributes{ElementType::BF16}");
    return check.operand(0);
}

// d convert(a) = convert(da): rounding is the identity up to the rounding
// error, so the adjoint passes straight through, held in the type its value is
// held in (as PyTorch's gradient of a bf16 tensor is a bf16 tensor).
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.unary(Opcode::Convert, c.adjoint, c.node.attributes());
}

HloElement element_of(ElementType type) {
    switch (type) {
        case ElementType::F32:
            return HloElement::F32;
        case ElementType::F64:
            return HloElement::F64;
        case ElementType::BF16:
            break;
    }
    return HloElement::BF16;
}

// To the type and back: stablehlo.convert rounds to nearest even, and widening is exact.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const HloElement to = element_of(node.attributes_as<ConvertAttributes>().to);
    return build.convert(build.convert(build.operand(0), to), HloElement::Real);
}

}  // namespace convert_op
}  // namespace

OpInfo convert_row() {
    using namespace convert_op;
    return {.opcode = Opcode::Convert,
            .kind = OpKind::Elementwise,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
