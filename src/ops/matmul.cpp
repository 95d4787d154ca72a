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

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    const Extents extents{(*operands[0].shape)[0], (*operands[0].shape)[1], (*operands[1].shape)[1]};
#if defined(__x86_64__)
    if (processor_has_fma()) {
        multiply_with_fma(operands[0].data, operands[1].data, out, extents);
        return;
    }
#endif
    multiply(operands[0].data, operands[1].data, out, extents);
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
