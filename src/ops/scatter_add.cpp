// ScatterAdd: the adjoint of Gather. Indices [picks...] and updates
// [picks..., rest...] give a [rows, rest...] tensor that starts at +0 and adds
// each update row at its index, in ascending order of picks: deterministic.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/index.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace scatter_add_op {

Shape infer(const ShapeCheck& check) {
    const std::size_t rows = check.attributes<RowsAttributes>().rows;
    const Shape& indices = check.operand(0);
    const Shape& updates = check.operand(1);
    bool leading = updates.rank() >= indices.rank();
    for (std::size_t axis = 0; leading && axis < indices.rank(); ++axis) {
        leading = updates[axis] == indices[axis];
    }
    check.require(leading, "the updates must start with the indices' shape " + indices.str());
    Shape result{rows};
    for (std::size_t axis = indices.rank(); axis < updates.rank(); ++axis) {
        result = result.with_axis(result.rank(), updates[axis]);
    }
    return result;
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const std::size_t rows = node.attributes_as<RowsAttributes>().rows;
    const std::size_t row = node.shape().without_axis(0).elements();  // also for no rows
    const std::size_t picks = operands[0].shape->elements();
    std::fill_n(out, node.shape().elements(), T{0});
    for (std::size_t i = 0; i < picks; ++i) {
        const std::size_t index =
            checked_index(operands[0].data[i],
                          rows,
                          "ScatterAdd (the derivative of gather, or an Embedding's token ids)");
        const T* update = operands[1].data + i * row;
        T* target = out + index * row;
        for (std::size_t j = 0; j < row; ++j) {
            target[j] += update[j];
        }
    }
}

// the updates' adjoint reads back the rows they were added to
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[1] = c.build.apply(Opcode::Gather, {c.adjoint, c.operands[0]});
}

// A scatter with an add body into +0, the reference kernel's starting value.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const HloValue zeros = build.splat(0.0, node.shape());
    return build.scatter_add_rows(zeros, build.index_operand(0), build.operand(1));
}

}  // namespace scatter_add_op
}  // namespace

OpInfo scatter_add_row() {
    using namespace scatter_add_op;
    return {.opcode = Opcode::ScatterAdd,
            .kind = OpKind::General,
            .arity = 2,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower,
            .index_operands = 0b01};
}

}  // namespace topos::detail
