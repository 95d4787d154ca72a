// The kernel of every bf16 node: the bf16 contract (docs/exact-math.md) as one
// adapter over the op table's float kernels. Operands widen to float exactly,
// the float kernel computes in the oracle's order, and each result element
// rounds once to nearest, ties to even. An elementwise node computes each
// element from the same position of its operands, so it runs in chunks: its
// float copies stay a few hundred kilobytes however large the tensors.
#include "kernels/bf16_rows.hpp"
#include "ops/op_info.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace topos::detail {
namespace {

// Elements of an elementwise node widened and computed at once.
constexpr std::size_t chunk_elements = std::size_t{1} << 13;

// Elements [first, first + count) of `operand` in float, into `widened`.
View<float> widen(const View<bf16>& operand,
                  std::size_t first,
                  std::size_t count,
                  const Shape* shape,
                  std::vector<float>& widened) {
    float* to = float_scratch(widened, count);
    widen_row(operand.data + first, count, to);
    return View<float>{to, shape};
}

}  // namespace

void widened_kernel(const NodeView& node, std::span<const View<bf16>> operands, bf16* out) {
    thread_local std::array<std::vector<float>, max_operands> widened;
    thread_local std::vector<float> result;
    std::array<View<float>, max_operands> views{};
    const std::span<const View<float>> widened_views(views.data(), operands.size());
    const OpInfo& row = op_info(node.opcode());
    if (row.kind == OpKind::Elementwise) {
        // The operands' elements: a map region runs its members on blocks of them.
        const std::size_t total = operands[0].shape->elements();
        for (std::size_t first = 0; first < total; first += chunk_elements) {
            const Shape chunk{std::min(chunk_elements, total - first)};
            for (std::size_t i = 0; i < operands.size(); ++i) {
                views[i] = widen(operands[i], first, chunk[0], &chunk, widened[i]);
            }
            float* sums = float_scratch(result, chunk[0]);
            row.kernel_f32(NodeView(node.opcode(), node.attributes(), chunk), widened_views, sums);
            round_row(sums, chunk[0], out + first);
        }
        return;
    }
    for (std::size_t i = 0; i < operands.size(); ++i) {
        views[i] =
            widen(operands[i], 0, operands[i].shape->elements(), operands[i].shape, widened[i]);
    }
    float* values = float_scratch(result, node.shape().elements());
    row.kernel_f32(node, widened_views, values);
    round_row(values, node.shape().elements(), out);
}

}  // namespace topos::detail
