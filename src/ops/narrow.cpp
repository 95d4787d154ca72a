// Narrow: positions [start, start + length) of one axis.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace narrow_op {

Shape infer(const ShapeCheck& check) {
    const auto& narrow = check.attributes<NarrowAttributes>();
    check.require_axis(0, narrow.axis);
    const std::size_t extent = check.operand(0)[narrow.axis];
    check.require(narrow.start <= extent && narrow.length <= extent - narrow.start,
                  std::to_string(narrow.length) + " positions from position " +
                      std::to_string(narrow.start) + " do not fit in axis " +
                      std::to_string(narrow.axis) + " of extent " + std::to_string(extent));
    return check.operand(0).with_extent(narrow.axis, narrow.length);
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const auto& narrow = node.attributes_as<NarrowAttributes>();
    const AxisSplit split = split_at(*operands[0].shape, narrow.axis);
    const std::size_t block = narrow.length * split.inner;
    for (std::size_t o = 0; o < split.outer; ++o) {
        const T* from = operands[0].data + (o * split.extent + narrow.start) * split.inner;
        copy_run(from, block, out + o * block);
    }
}

// The adjoint puts the narrowed part back between zeros.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const auto& narrow = c.node.attributes_as<NarrowAttributes>();
    const std::size_t extent = c.build.shape(c.operands[0])[narrow.axis];
    contributions[0] = c.build.pad(
        c.adjoint, PadAttributes{narrow.axis, narrow.start, extent - narrow.start - narrow.length});
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    const auto& narrow = node.attributes_as<NarrowAttributes>();
    return build.slice(
        build.operand(0), narrow.axis, narrow.start, narrow.start + narrow.length, 1);
}

}  // namespace narrow_op
}  // namespace

OpInfo narrow_row() {
    using namespace narrow_op;
    return {.opcode = Opcode::Narrow,
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
