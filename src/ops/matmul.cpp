// MatMul: the product of a [m, k] and a [k, n] matrix. Each output element
// starts at +0 and accumulates its k terms in ascending order with one fma each:
// the order every faster exact kernel reproduces.
#include "ops/rows.hpp"

#include <algorithm>
#include <cmath>

namespace topos::detail {
namespace {

Shape infer(const ShapeCheck& check) {
    const Shape& a = check.operand(0);
    const Shape& b = check.operand(1);
    check.require(a.rank() == 2 && b.rank() == 2,
                  "matmul takes two rank-2 operands; reshape to [rows, columns] first");
    check.require(a[1] == b[0],
                  "the inner extents differ (" + std::to_string(a[1]) + " vs " +
                      std::to_string(b[0]) + "); the left operand's columns must equal the "
                      "right operand's rows (transpose one with permute({1, 0})?)");
    return Shape{a[0], b[1]};
}

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    const T* a = operands[0].data;
    const T* b = operands[1].data;
    const std::size_t rows = (*operands[0].shape)[0];
    const std::size_t depth = (*operands[0].shape)[1];
    const std::size_t columns = (*operands[1].shape)[1];
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

// d(A B) = dA B + A dB, so A receives G B^T and B receives A^T G
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Axes transpose{1, 0};
    contributions[0] = c.build.matmul(c.adjoint, c.build.permute(c.operands[1], transpose));
    contributions[1] = c.build.matmul(c.build.permute(c.operands[0], transpose), c.adjoint);
}

}  // namespace

OpInfo matmul_row() {
    return {Opcode::MatMul, "MatMul", 2, infer, kernel<float>, kernel<double>, vjp};
}

}  // namespace topos::detail
