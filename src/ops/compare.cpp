// Compare: the mask 1 where `a direction b` holds, else 0 (a NaN compares false,
// except under NotEqual).
#include "emit/hlo_builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

Shape infer(const ShapeCheck& check) {
    check.attributes<CompareAttributes>();
    return equal_shapes(check);
}

template <Element T, class Holds>
void mask(std::span<const View<T>> operands, T* out, Holds holds) {
    binary_map(operands, out, [&](T a, T b) { return holds(a, b) ? T{1} : T{0}; });
}

template <Element T>
void kernel(const Node& node, std::span<const View<T>> operands, T* out) {
    switch (node.attributes_as<CompareAttributes>().direction) {
        case Comparison::Equal:
            return mask(operands, out, [](T a, T b) { return a == b; });
        case Comparison::NotEqual:
            return mask(operands, out, [](T a, T b) { return a != b; });
        case Comparison::Less:
            return mask(operands, out, [](T a, T b) { return a < b; });
        case Comparison::LessEqual:
            return mask(operands, out, [](T a, T b) { return a <= b; });
        case Comparison::Greater:
            return mask(operands, out, [](T a, T b) { return a > b; });
        case Comparison::GreaterEqual:
            return mask(operands, out, [](T a, T b) { return a >= b; });
    }
}

// a mask is piecewise constant: no derivative flows through it
void vjp(const VjpContext&, std::span<std::optional<Ref>>) {}

// An i1 mask, converted to the 1 and 0 of the plan's real type.
HloValue lower(HloBuilder& build) {
    const Comparison direction = build.node().attributes_as<CompareAttributes>().direction;
    return build.convert(build.compare(direction, build.operand(0), build.operand(1)),
                         HloElement::Real);
}

}  // namespace

OpInfo compare_row() {
    return {Opcode::Compare, "Compare", 2, infer, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
