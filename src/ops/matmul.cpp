// MatMul: the product of a [..., m, k] and a [..., k, n] operand, one matrix
// product per batch index (the leading axes, equal on both sides). Each output
// element starts at +0 and accumulates its k terms in ascending order with one
// fma each: the order every faster exact kernel reproduces.
#include "ops/matmul.hpp"

#include "emit/hlo_builder.hpp"
#include "ops/rows.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace topos::detail {
namespace {

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

struct Extents {
    std::size_t rows;
    std::size_t depth;
    std::size_t columns;
};

// The reference loop: rows of outputs, each accumulating over ascending k.
template <Element T>
[[gnu::always_inline]] inline void multiply(const T* a, const T* b, T* out, Extents e) {
    const auto [rows, depth, columns] = e;
    for (std::size_t i = 0; i < rows; ++i) {
        T* row = out + i * columns;
        std::fill(row, row + columns, T{0});
        for (std::size_t p = 0; p < depth; ++p) {
            const T scale = a[i * depth + p];
            const T* b_row = b + p * columns;
            for (std::size_t j = 0; j < columns; ++j) {
                row[j] = std::fma(scale, b_row[j], row[j]);
            }
        }
    }
}

#if defined(__x86_64__)
// The same loop compiled where the processor has fused multiply-add: std::fma
// becomes one instruction and the j loop vectorises across outputs, so the bits
// are the reference's.
template <Element T>
[[gnu::target("avx2,fma")]] void multiply_with_fma(const T* a, const T* b, T* out, Extents e) {
    multiply(a, b, out, e);
}

bool processor_has_fma() {
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return has;
}
#endif

}  // namespace

template <Element T>
void multiply_matrices(
    const T* a, const T* b, T* out, std::size_t rows, std::size_t depth, std::size_t columns) {
    const Extents extents{rows, depth, columns};
#if defined(__x86_64__)
    if (processor_has_fma()) {
        multiply_with_fma(a, b, out, extents);
        return;
    }
#endif
    multiply(a, b, out, extents);
}

template void multiply_matrices(
    const float*, const float*, float*, std::size_t, std::size_t, std::size_t);
template void multiply_matrices(
    const double*, const double*, double*, std::size_t, std::size_t, std::size_t);

namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    const Shape& a = *operands[0].shape;
    const std::size_t r = a.rank();
    const Extents extents{a[r - 2], a[r - 1], (*operands[1].shape)[r - 1]};
    std::size_t batches = 1;
    for (std::size_t axis = 0; axis + 2 < r; ++axis) {
        batches *= a[axis];
    }
    for (std::size_t batch = 0; batch < batches; ++batch) {
        multiply_matrices(operands[0].data + batch * extents.rows * extents.depth,
                          operands[1].data + batch * extents.depth * extents.columns,
                          out + batch * extents.rows * extents.columns,
                          extents.rows,
                          extents.depth,
                          extents.columns);
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
HloValue lower(HloBuilder& build) {
    const std::size_t rank = build.node().shape().rank();
    DotDimensions dimensions;
    for (std::size_t axis = 0; axis + 2 < rank; ++axis) {
        dimensions.lhs_batching.push_back(axis);
        dimensions.rhs_batching.push_back(axis);
    }
    dimensions.lhs_contracting = {rank - 1};
    dimensions.rhs_contracting = {rank - 2};
    return build.dot_general(build.operand(0), build.operand(1), dimensions);
}

}  // namespace

OpInfo matmul_row() {
    return {Opcode::MatMul, "MatMul", 2, infer, kernel<float>, kernel<double>, vjp, lower};
}

}  // namespace topos::detail
