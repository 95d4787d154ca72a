// Gather: rows of a table picked by an index tensor, a true embedding lookup.
// A table [rows, rest...] and indices [picks...] give [picks..., rest...];
// an index outside [0, rows) throws IndexError at run time.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/index.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace gather_op {

Shape infer(const ShapeCheck& check) {
    check.attributes<NoAttributes>();
    const Shape& table = check.operand(0);
    check.require(table.rank() >= 1, "the table needs a row axis; reshape a scalar to [1]");
    Shape result = check.operand(1);
    for (std::size_t axis = 1; axis < table.rank(); ++axis) {
        result = result.with_axis(result.rank(), table[axis]);
    }
    return result;
}

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    const Shape& table = *operands[0].shape;
    const std::size_t row = table.without_axis(0).elements();  // also for a table without rows
    const std::size_t picks = operands[1].shape->elements();
    for (std::size_t i = 0; i < picks; ++i) {
        const std::size_t index = checked_index(
            operands[1].data[i],
            table[0],
            "Gather (gather(table, indices), or an Embedding's token ids, one per table row)");
        out = copy_run(operands[0].data + index * row, row, out);
    }
}

// the table's adjoint adds each picked row's adjoint back at its index
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const std::size_t rows = c.build.shape(c.operands[0])[0];
    contributions[0] =
        c.build.apply(Opcode::ScatterAdd, {c.operands[1], c.adjoint}, RowsAttributes{rows});
}

// Out-of-range indices: StableHLO clamps them where the interpreter throws.
HloValue lower(HloBuilder& build, const NodeView&) {
    return build.gather_rows(build.operand(0), build.index_operand(1));
}

}  // namespace gather_op
}  // namespace

OpInfo gather_row() {
    using namespace gather_op;
    return {.opcode = Opcode::Gather,
            .kind = OpKind::General,
            .arity = 2,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower,
            .index_operands = 0b10};
}

}  // namespace topos::detail
