// Fold: the adjoint of Unfold. Sums the window axis back into an axis of
// `extent` positions: output position p is the sum, over windows c ascending
// and then window elements w ascending, of every element read from p
// (c * step + w * dilation == p), starting from +0.
#include "hlo/builder.hpp"
#include "ops/common.hpp"
#include "ops/rows.hpp"
#include "ops/window.hpp"

#include <algorithm>
#include <optional>

namespace topos::detail {
namespace {
namespace fold_op {

Shape infer(const ShapeCheck& check) {
    const auto& fold = check.attributes<FoldAttributes>();
    const Shape& shape = check.operand(0);
    check.require(fold.axis + 1 < shape.rank(),
                  "fold needs a window-count axis and a window axis after it; axis " +
                      std::to_string(fold.axis) + " leaves no room in rank " +
                      std::to_string(shape.rank()));
    check_window(check, fold.size, fold.step, fold.dilation, fold.extent);
    check.require(
        shape[fold.axis + 1] == fold.size &&
            shape[fold.axis] == window_count(fold.extent, fold.size, fold.step, fold.dilation),
        "the operand's window axes do not match what unfolding an axis of extent " +
            std::to_string(fold.extent) + " gives; fold with the unfold's own attributes");
    return shape.without_axis(fold.axis + 1).with_extent(fold.axis, fold.extent);
}

// Folding the innermost axis with step 1 and dilation 1: position p gathers
// element p - c of windows c ascending, the order above, summed in a register
// instead of in memory.
template <Element T>
void fold_adjacent_windows(const T* in,
                           T* out,
                           std::size_t rows,
                           std::size_t extent,
                           std::size_t count,
                           std::size_t size) {
    for (std::size_t o = 0; o < rows; ++o, in += count * size, out += extent) {
        for (std::size_t p = 0; p < extent; ++p) {
            const std::size_t first = p + 1 >= size ? p + 1 - size : 0;
            const std::size_t end = std::min(count, p + 1);
            T total{0};
            for (std::size_t c = first; c < end; ++c) {
                total += in[c * size + (p - c)];
            }
            out[p] = total;
        }
    }
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const auto& fold = node.attributes_as<FoldAttributes>();
    const AxisSplit split = split_at(node.shape(), fold.axis);
    const std::size_t count = (*operands[0].shape)[fold.axis];
    if (split.inner == 1 && fold.step == 1 && fold.dilation == 1) {
        fold_adjacent_windows(operands[0].data, out, split.outer, split.extent, count, fold.size);
        return;
    }
    std::fill_n(out, node.shape().elements(), T{0});
    const T* in = operands[0].data;
    if (split.inner == 1) {  // folding the innermost axis: one element per window element
        for (std::size_t o = 0; o < split.outer; ++o) {
            T* row = out + o * split.extent;
            for (std::size_t c = 0; c < count; ++c) {
                for (std::size_t w = 0; w < fold.size; ++w) {
                    row[c * fold.step + w * fold.dilation] += *in++;
                }
            }
        }
        return;
    }
    for (std::size_t o = 0; o < split.outer; ++o) {
        for (std::size_t c = 0; c < count; ++c) {
            for (std::size_t w = 0; w < fold.size; ++w) {
                const std::size_t position = c * fold.step + w * fold.dilation;
                T* row = out + (o * split.extent + position) * split.inner;
                for (std::size_t i = 0; i < split.inner; ++i) {
                    row[i] += in[i];
                }
                in += split.inner;
            }
        }
    }
}

// The adjoint of summing windows back reads the windows again.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const auto& fold = c.node.attributes_as<FoldAttributes>();
    contributions[0] =
        c.build.unfold(c.adjoint, WindowAttributes{fold.axis, fold.size, fold.step, fold.dilation});
}

// Element w of every window goes back to positions w * dilation + c * step: a
// pad with step - 1 interior zeros. The pieces add up last window element
// first, the order in which the reference kernel meets them at a position.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const auto& fold = node.attributes_as<FoldAttributes>();
    const HloValue windows = build.operand(0);
    const std::size_t count = build.shape(windows)[fold.axis];
    const Shape piece = build.shape(windows).without_axis(fold.axis + 1);
    std::optional<HloValue> total;
    for (std::size_t w = fold.size; w-- > 0;) {
        const HloValue element =
            build.reshape(build.slice(windows, fold.axis + 1, w, w + 1, 1), piece);
        const std::size_t low = w * fold.dilation;
        const std::size_t high = fold.extent - (low + (count - 1) * fold.step + 1);
        const HloValue placed = build.pad(element, fold.axis, low, high, fold.step - 1);
        total = total ? build.add(*total, placed) : placed;
    }
    return *total;
}

}  // namespace fold_op
}  // namespace

OpInfo fold_row() {
    using namespace fold_op;
    return {.opcode = Opcode::Fold,
            .kind = OpKind::General,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
