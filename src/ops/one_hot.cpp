// OneHot: indices [picks...] become [picks..., depth], 1 at each index and 0
// elsewhere; an index outside [0, depth) throws IndexError at run time.
#include "ops/common.hpp"
#include "ops/index.hpp"
#include "ops/lowering.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace one_hot_op {

Shape infer(const ShapeCheck& check) {
    const std::size_t depth = check.attributes<RowsAttributes>().rows;
    return check.operand(0).with_axis(check.operand(0).rank(), depth);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const std::size_t depth = node.attributes_as<RowsAttributes>().rows;
    const std::size_t picks = operands[0].shape->elements();
    std::fill_n(out, picks * depth, T{0});
    for (std::size_t i = 0; i < picks; ++i) {
        out[i * depth +
            checked_index(
                operands[0].data[i],
                depth,
                "OneHot (one_hot(depth), or the labels of cross_entropy over that many classes)")] =
            T{1};
    }
}

// indices are discrete: no derivative flows through them
void vjp(const VjpContext&, std::span<std::optional<Ref>>) {}

// An iota along the new last axis compared with the indices repeated along it.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const Shape& shape = node.shape();
    const std::size_t depth_axis = shape.rank() - 1;
    const HloValue positions = build.iota(shape, depth_axis);
    const HloValue indices =
        build.broadcast_in_dim(build.operand(0), shape, axes_except(shape.rank(), depth_axis));
    return build.convert(build.compare(HloComparison::EQ, indices, positions), HloElement::Real);
}

}  // namespace one_hot_op
}  // namespace

OpInfo one_hot_row() {
    using namespace one_hot_op;
    return {.opcode = Opcode::OneHot,
            .kind = OpKind::General,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower,
            .index_operands = 0b01};
}

}  // namespace topos::detail
