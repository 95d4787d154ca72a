// The kernel of every bf16 node: the bf16 contract (docs/exact-math.md) as one
// adapter over the op table's float kernels. Operands widen to float exactly,
// the float kernel computes in the oracle's order, and each result element
// rounds once to nearest, ties to even.
#include "ops/op_info.hpp"

#include <array>
#include <vector>

namespace topos::detail {

void widened_kernel(const NodeView& node, std::span<const View<bf16>> operands, bf16* out) {
    thread_local std::array<std::vector<float>, max_operands> widened;
    thread_local std::vector<float> result;
    std::array<View<float>, max_operands> views{};
    for (std::size_t i = 0; i < operands.size(); ++i) {
        const std::size_t count = operands[i].shape->elements();
        widened[i].resize(count);
        for (std::size_t k = 0; k < count; ++k) {
            widened[i][k] = static_cast<float>(operands[i].data[k]);
        }
        views[i] = View<float>{widened[i].data(), operands[i].shape};
    }
    const std::size_t count = node.shape().elements();
    result.resize(count);
    op_info(node.opcode())
        .kernel_f32(
            node, std::span<const View<float>>(views.data(), operands.size()), result.data());
    for (std::size_t k = 0; k < count; ++k) {
        out[k] = bf16(result[k]);
    }
}

}  // namespace topos::detail
