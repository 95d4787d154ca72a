// Unfold: sliding windows along one axis. The axis becomes the window count and
// a window axis of `size` is inserted right after it; element w of window c is
// operand position c * step + w * dilation.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"
#include "ops/window.hpp"

#include <algorithm>
#include <vector>

namespace topos::detail {
namespace {
namespace unfold_op {

Shape infer(const ShapeCheck& check) {
    const auto& window = check.attributes<WindowAttributes>();
    check.require_axis(0, window.axis);
    const std::size_t extent = check.operand(0)[window.axis];
    check_window(check, window.size, window.step, window.dilation, extent);
    const std::size_t count = window_count(extent, window.size, window.step, window.dilation);
    return check.operand(0).with_extent(window.axis, count).with_axis(window.axis + 1, window.size);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const auto& window = node.attributes_as<WindowAttributes>();
    const AxisSplit split = split_at(*operands[0].shape, window.axis);
    const std::size_t count = node.shape()[window.axis];
    for (std::size_t o = 0; o < split.outer; ++o) {
        for (std::size_t c = 0; c < count; ++c) {
            for (std::size_t w = 0; w < window.size; ++w) {
                const std::size_t position = c * window.step + w * window.dilation;
                out = copy_run(operands[0].data + (o * split.extent + position) * split.inner,
                               split.inner,
                               out);
            }
        }
    }
}

// The adjoint of reading windows sums each window element back where it was read.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const auto& window = c.node.attributes_as<WindowAttributes>();
    const std::size_t extent = c.build.shape(c.operands[0])[window.axis];
    contributions[0] = c.build.fold(
        c.adjoint, FoldAttributes{window.axis, window.size, window.step, window.dilation, extent});
}

// Element w of every window is a strided slice starting at w * dilation; the
// `size` slices, each given a unit window axis, are joined along it.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const auto& window = node.attributes_as<WindowAttributes>();
    const std::size_t count = node.shape()[window.axis];
    const Shape piece = node.shape().with_extent(window.axis + 1, 1);
    std::vector<HloValue> pieces;
    for (std::size_t w = 0; w < window.size; ++w) {
        const std::size_t start = w * window.dilation;
        const HloValue strided = build.slice(build.operand(0),
                                             window.axis,
                                             start,
                                             start + (count - 1) * window.step + 1,
                                             window.step);
        pieces.push_back(build.reshape(strided, piece));
    }
    return pieces.size() == 1 ? pieces.front() : build.concatenate(pieces, window.axis + 1);
}

}  // namespace unfold_op
}  // namespace

OpInfo unfold_row() {
    using namespace unfold_op;
    return {.opcode = Opcode::Unfold,
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
