// BroadcastAlong: inserts a new axis at `axis` along which the operand repeats
// `extent` times. The one broadcasting primitive: numpy-style broadcasting is
// recorded as a chain of these (and Reshapes).
#include "ops/common.hpp"
#include "ops/lowering.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

Shape infer(const ShapeCheck& check) {
    const auto& broadcast = check.attributes<BroadcastAttributes>();
    check.require_axis(0, broadcast.axis, true);
    return check.operand(0).with_axis(broadcast.axis, broadcast.extent);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const auto& broadcast = node.attributes_as<BroadcastAttributes>();
    const AxisSplit split = split_at(node.shape(), broadcast.axis);
    if (split.inner == 1) {  // along the last axis: each element fills a run
        for (std::size_t o = 0; o < split.outer; ++o) {
            std::fill_n(out + o * split.extent, split.extent, operands[0].data[o]);
        }
        return;
    }
    for (std::size_t o = 0; o < split.outer; ++o) {
        const T* row = operands[0].data + o * split.inner;
        for (std::size_t a = 0; a < split.extent; ++a) {
            copy_run(row, split.inner, out + (o * split.extent + a) * split.inner);
        }
    }
}

// The adjoint of a repetition sums the repeats.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    contributions[0] = c.build.sum(c.adjoint, c.node.attributes_as<BroadcastAttributes>().axis);
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    const Shape& shape = node.shape();
    const std::size_t axis = node.attributes_as<BroadcastAttributes>().axis;
    return build.broadcast_in_dim(build.operand(0), shape, axes_except(shape.rank(), axis));
}

}  // namespace

OpInfo broadcast_along_row() {
    return {.opcode = Opcode::BroadcastAlong,
            .kind = OpKind::Layout,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
