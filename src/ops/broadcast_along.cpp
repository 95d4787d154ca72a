// BroadcastAlong: inserts a new axis at `axis` along which the operand repeats
// `extent` times. The one broadcasting primitive: numpy-style broadcasting is
// recorded as a chain of these (and Reshapes).
#include "ops/common.hpp"
#include "ops/lowering.hpp"
#include "ops/rows.hpp"

#include <algorithm>

namespace topos::detail {
namespace {
namespace broadcast_along_op {

Shape infer(const ShapeCheck& check) {
    const auto& broadcast = check.attributes<BroadcastAttributes>();
    check.require_axis(0, broadcast.axis, true);
    return check.operand(0).with_axis(broadcast.axis, broadcast.extent);
}

// Copies shorter than this many elements are loops.
constexpr std::size_t short_copy = 64;

// `count` repeats of the run `row` of `inner` elements from `out`: one copy,
// then copies of what is already written, doubling, so that a bias of 8
// elements spread over 25,088 rows takes a dozen copies, not 25,088.
template <Element T>
void repeat_run(const T* row, std::size_t inner, std::size_t count, T* out) {
    if (count == 0) {
        return;
    }
    copy_run(row, inner, out);
    const std::size_t total = inner * count;
    for (std::size_t done = inner; done < total;) {
        const std::size_t more = std::min(done, total - done);
        if (more < short_copy) {  // a loop: a call would cost more than the copy
            for (std::size_t i = 0; i < more; ++i) {
                out[done + i] = out[i];
            }
        } else {
            std::copy_n(out, more, out + done);
        }
        done += more;
    }
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const auto& broadcast = node.attributes_as<BroadcastAttributes>();
    const AxisSplit split = split_at(node.shape(), broadcast.axis);
    if (split.inner == 1) {  // along the last axis: each element fills a run
        for_each_range(split.outer, split.extent, [&](std::size_t begin, std::size_t end) {
            for (std::size_t o = begin; o < end; ++o) {
                std::fill_n(out + o * split.extent, split.extent, operands[0].data[o]);
            }
        });
        return;
    }
    // Rows (o, a) of `inner` elements, a share of them a task: row (o, a) is
    // row o of the operand.
    for_each_range(
        split.outer * split.extent, split.inner, [&](std::size_t begin, std::size_t end) {
            for (std::size_t first = begin; first < end;) {
                const std::size_t o = first / split.extent;
                const std::size_t last = std::min(end, (o + 1) * split.extent);
                repeat_run(operands[0].data + o * split.inner,
                           split.inner,
                           last - first,
                           out + first * split.inner);
                first = last;
            }
        });
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

}  // namespace broadcast_along_op
}  // namespace

OpInfo broadcast_along_row() {
    using namespace broadcast_along_op;
    return {.opcode = Opcode::BroadcastAlong,
            .kind = OpKind::Layout,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower,
            .keeps_a_uniform_fill = true};
}

}  // namespace topos::detail
