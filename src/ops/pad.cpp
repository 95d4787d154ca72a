// Pad: zeros added before and after one axis, and `interior` zeros between
// neighbouring elements along it.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace pad_op {

std::size_t padded_extent(std::size_t extent, const PadAttributes& pad) {
    const std::size_t between = extent == 0 ? 0 : (extent - 1) * pad.interior;
    return pad.before + extent + between + pad.after;
}

Shape infer(const ShapeCheck& check) {
    const auto& pad = check.attributes<PadAttributes>();
    check.require_axis(0, pad.axis);
    const std::size_t extent = check.operand(0)[pad.axis];
    const std::size_t between =
        extent == 0 ? 0 : check.product(extent - 1, pad.interior, "the interior padding");
    const std::size_t padded = check.sum(check.sum(pad.before, pad.after, "the padded extent"),
                                         check.sum(extent, between, "the padded extent"),
                                         "the padded extent");
    return check.operand(0).with_extent(pad.axis, padded);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const auto& pad = node.attributes_as<PadAttributes>();
    const AxisSplit split = split_at(*operands[0].shape, pad.axis);
    const std::size_t padded = padded_extent(split.extent, pad);
    std::fill_n(out, node.shape().elements(), T{0});
    if (pad.interior == 0) {  // each outer index's rows stay together: one copy
        for (std::size_t o = 0; o < split.outer; ++o) {
            copy_run(operands[0].data + o * split.extent * split.inner,
                     split.extent * split.inner,
                     out + (o * padded + pad.before) * split.inner);
        }
        return;
    }
    for (std::size_t o = 0; o < split.outer; ++o) {
        for (std::size_t a = 0; a < split.extent; ++a) {
            const std::size_t position = pad.before + a * (pad.interior + 1);
            copy_run(operands[0].data + (o * split.extent + a) * split.inner,
                     split.inner,
                     out + (o * padded + position) * split.inner);
        }
    }
}

// The adjoint keeps the positions that came from the operand.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const auto& pad = c.node.attributes_as<PadAttributes>();
    const std::size_t extent = c.build.shape(c.operands[0])[pad.axis];
    contributions[0] =
        pad.interior == 0
            ? c.build.narrow(c.adjoint, NarrowAttributes{pad.axis, pad.before, extent})
            : c.build.unary(Opcode::Slice,
                            c.adjoint,
                            SliceAttributes{pad.axis, pad.before, extent, pad.interior + 1});
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    const auto& pad = node.attributes_as<PadAttributes>();
    return build.pad(build.operand(0), pad.axis, pad.before, pad.after, pad.interior);
}

}  // namespace pad_op
}  // namespace

OpInfo pad_row() {
    using namespace pad_op;
    return {.opcode = Opcode::Pad,
            .kind = OpKind::Layout,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
