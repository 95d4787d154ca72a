// Slice: every step-th position of one axis: positions start, start + step, ...,
// `length` of them (Narrow is the contiguous case).
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace slice_op {

Shape infer(const ShapeCheck& check) {
    const auto& slice = check.attributes<SliceAttributes>();
    check.require_axis(0, slice.axis);
    const std::size_t extent = check.operand(0)[slice.axis];
    check.require(slice.step >= 1, "the step must be at least 1");
    check.require(
        slice.length == 0 ||
            (slice.start < extent && (slice.length - 1) <= (extent - slice.start - 1) / slice.step),
        "positions " + std::to_string(slice.start) + ", " +
            std::to_string(slice.start + slice.step) + ", ... (" + std::to_string(slice.length) +
            " of them) do not fit in axis " + std::to_string(slice.axis) + " of extent " +
            std::to_string(extent));
    return check.operand(0).with_extent(slice.axis, slice.length);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const auto& slice = node.attributes_as<SliceAttributes>();
    const AxisSplit split = split_at(*operands[0].shape, slice.axis);
    for (std::size_t o = 0; o < split.outer; ++o) {
        for (std::size_t i = 0; i < slice.length; ++i) {
            const std::size_t position = slice.start + i * slice.step;
            out = copy_run(
                operands[0].data + (o * split.extent + position) * split.inner, split.inner, out);
        }
    }
}

// the adjoint goes back to the positions read, with zeros between them
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const auto& slice = c.node.attributes_as<SliceAttributes>();
    const std::size_t extent = c.build.shape(c.operands[0])[slice.axis];
    const std::size_t covered = slice.length == 0 ? 0 : (slice.length - 1) * slice.step + 1;
    contributions[0] = c.build.pad(
        c.adjoint,
        PadAttributes{slice.axis, slice.start, extent - slice.start - covered, slice.step - 1});
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    const auto& slice = node.attributes_as<SliceAttributes>();
    const std::size_t limit =
        slice.length == 0 ? slice.start : slice.start + (slice.length - 1) * slice.step + 1;
    return build.slice(build.operand(0), slice.axis, slice.start, limit, slice.step);
}

}  // namespace slice_op
}  // namespace

OpInfo slice_row() {
    using namespace slice_op;
    return {.opcode = Opcode::Slice,
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
