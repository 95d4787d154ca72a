// The shape rules the elementwise and reducing rows share: one operand's shape
// kept, two operands required to be equal (with advice to broadcast), and a
// reduction's axis removed.
#include "ops/common.hpp"

#include "ops/reduce.hpp"

namespace topos::detail {

Shape same_shape_unary(const ShapeCheck& check) {
    check.attributes<NoAttributes>();
    return check.operand(0);
}

Shape equal_shapes(const ShapeCheck& check) {
    check.require(check.operand(0) == check.operand(1),
                  "the operands' shapes differ; use the Value operators, which broadcast "
                  "numpy-style, or broadcast_along / reshape to make them equal");
    return check.operand(0);
}

Shape same_shape_binary(const ShapeCheck& check) {
    check.attributes<NoAttributes>();
    return equal_shapes(check);
}

Shape reduce_axis_shape(const ShapeCheck& check) {
    const std::size_t axis = check.attributes<AxisAttributes>().axis;
    check.require_axis(0, axis);
    return check.operand(0).without_axis(axis);
}

}  // namespace topos::detail
