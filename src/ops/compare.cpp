// Compare: the mask 1 where `a direction b` holds, else 0 (a NaN compares false,
// except under NotEqual).
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {
namespace compare_op {

Shape infer(const ShapeCheck& check) {
    check.attributes<CompareAttributes>();
    return equal_shapes(check);
}

template <Element T, class Holds>
void mask(std::span<const View<T>> operands, T* out, Holds holds) {
    binary_map(operands, out, [&](Arithmetic<T> a, Arithmetic<T> b) {
        return holds(a, b) ? Arithmetic<T>{1} : Arithmetic<T>{0};
    });
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    switch (node.attributes_as<CompareAttributes>().direction) {
        case Comparison::Equal:
            return mask(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a == b; });
        case Comparison::NotEqual:
            return mask(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a != b; });
        case Comparison::Less:
            return mask(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a < b; });
        case Comparison::LessEqual:
            return mask(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a <= b; });
        case Comparison::Greater:
            return mask(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a > b; });
        case Comparison::GreaterEqual:
            return mask(operands, out, [](Arithmetic<T> a, Arithmetic<T> b) { return a >= b; });
    }
}

// a mask is piecewise constant: no derivative flows through it
void vjp(const VjpContext&, std::span<std::optional<Ref>>) {}

HloComparison hlo_comparison(Comparison direction) {
    switch (direction) {
        case Comparison::Equal:
            return HloComparison::EQ;
        case Comparison::NotEqual:
            return HloComparison::NE;
        case Comparison::Less:
            return HloComparison::LT;
        case Comparison::LessEqual:
            return HloComparison::LE;
        case Comparison::Greater:
            return HloComparison::GT;
        case Comparison::GreaterEqual:
            return HloComparison::GE;
    }
    return HloComparison::EQ;
}

// An i1 mask, converted to the 1 and 0 of the plan's real type.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const Comparison direction = node.attributes_as<CompareAttributes>().direction;
    return build.convert(
        build.compare(hlo_comparison(direction), build.operand(0), build.operand(1)),
        HloElement::Real);
}

}  // namespace compare_op
}  // namespace

OpInfo compare_row() {
    using namespace compare_op;
    return {.opcode = Opcode::Compare,
            .kind = OpKind::Elementwise,
            .arity = 2,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
