// MatMul: the product of a [..., m, k] and a [..., k, n] operand, one matrix
// product per batch index (the leading axes, equal on both sides). Each output
// element starts at +0 and accumulates its k terms in ascending order with one
// fma each: out[i][j] = fma(a[i][k-1], b[k-1][j], ... fma(a[i][0], b[0][j], +0)).
// The kernel is the blocked exact GEMM of src/kernels/, which keeps that
// order for every tile and thread count; tests/ops/kernel_reference_test.cpp
// checks it against the plain loop. A bf16 product runs the exact bf16 GEMM,
// whose bits are the float kernel's on widened operands, rounded once.
#include "hlo/builder.hpp"
#include "kernels/gemm.hpp"
#include "kernels/gemm_bf16.hpp"
#include "ops/rows.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace topos::detail {
namespace {
namespace matmul_op {

Shape infer(const ShapeCheck& check) {
    check.attributes<NoAttributes>();  // a product has no attributes to carry
    const Shape& a = check.operand(0);
    const Shape& b = check.operand(1);
    check.require(a.rank() >= 2 && a.rank() == b.rank(),
                  "the MatMul opcode takes operands of one rank >= 2; the Value spelling "
                  "matmul(a, b) broadcasts batch axes for you");
    const std::size_t r = a.rank();
    check.require(a.with_extent(r - 1, 0).with_extent(r - 2, 0) ==
                      b.with_extent(r - 1, 0).with_extent(r - 2, 0),
                  "the batch axes differ; broadcast them first (the Value spelling does)");
    check.require(a[r - 1] == b[r - 2],
                  "the inner extents differ (" + std::to_string(a[r - 1]) + " vs " +
                      std::to_string(b[r - 2]) +
                      "); the left operand's columns must equal the "
                      "right operand's rows (transpose one?)");
    return a.with_extent(r - 1, b[r - 1]);
}

// The reference order, computed by the blocked, threaded exact GEMM: one
// product per batch index, operands read in place (bf16 ones widened as the
// GEMM packs them).
template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    const RowMajorProduct<T> product = row_major_product(
        operands[0].data, *operands[0].shape, operands[1].data, *operands[1].shape, out);
    if constexpr (std::same_as<T, bf16>) {
        gemm_bf16(product.extents, product.a, product.b, product.c);
    } else {
        gemm<T>(product.extents, product.a, product.b, product.c);
    }
}

// Swaps the last two axes.
Axes transposed(std::size_t rank) {
    std::array<std::size_t, Shape::max_rank> order{};
    for (std::size_t axis = 0; axis < rank; ++axis) {
        order[axis] = axis;
    }
    std::swap(order[rank - 1], order[rank - 2]);
    return Axes(std::span<const std::size_t>(order.data(), rank));
}

// d(A B) = dA B + A dB, so A receives G B^T and B receives A^T G
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Axes transpose = transposed(c.node.shape().rank());
    contributions[0] = c.build.matmul(c.adjoint, c.build.permute(c.operands[1], transpose));
    contributions[1] = c.build.matmul(c.build.permute(c.operands[0], transpose), c.adjoint);
}

// dot_general with the leading axes as batching dimensions.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const std::size_t rank = node.shape().rank();
    DotDimensions dimensions;
    for (std::size_t axis = 0; axis + 2 < rank; ++axis) {
        dimensions.lhs_batching.push_back(axis);
        dimensions.rhs_batching.push_back(axis);
    }
    dimensions.lhs_contracting = {rank - 1};
    dimensions.rhs_contracting = {rank - 2};
    return build.dot_general(build.operand(0), build.operand(1), dimensions);
}

// Each output adds the products along the left operand's last axis.
std::size_t depth(std::span<const Shape> operands) {
    const Shape& left = operands[0];
    return left.rank() == 0 ? 0 : left[left.rank() - 1];
}

}  // namespace matmul_op
}  // namespace

OpInfo matmul_row() {
    using namespace matmul_op;
    return {.opcode = Opcode::MatMul,
            .kind = OpKind::General,
            .arity = 2,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower,
            .depth = depth,
            .matrix_product = true};
}

}  // namespace topos::detail
