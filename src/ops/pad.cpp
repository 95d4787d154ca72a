// Pad: zeros added before and after one axis.
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

Shape infer(const ShapeCheck& check) {
    const auto& pad = check.attributes<PadAttributes>();
    check.require_axis(0, pad.axis);
    return check.operand(0).with_extent(pad.axis,
                                        pad.before + check.operand(0)[pad.axis] + pad.after);
}

template <Element T>
void kernel(const Node& node, std::span<const View<T>> operands, T* out) {
    const auto& pad = node.attributes_as<PadAttributes>();
    const AxisSplit split = split_at(*operands[0].shape, pad.axis);
    const std::size_t padded = split.extent + pad.before + pad.after;
    std::fill_n(out, node.shape().elements(), T{0});
    for (std::size_t o = 0; o < split.outer; ++o) {
        std::copy_n(operands[0].data + o * split.extent * split.inner,
                    split.extent * split.inner,
                    out + (o * padded + pad.before) * split.inner);
    }
}

// The adjoint keeps the part that came from the operand.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const auto& pad = c.node.attributes_as<PadAttributes>();
    const std::size_t extent = c.build.shape(c.operands[0])[pad.axis];
    contributions[0] = c.build.narrow(c.adjoint, NarrowAttributes{pad.axis, pad.before, extent});
}

}  // namespace

OpInfo pad_row() {
    return {Opcode::Pad, "Pad", 1, infer, kernel<float>, kernel<double>, vjp};
}

}  // namespace topos::detail
