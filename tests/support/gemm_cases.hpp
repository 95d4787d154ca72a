// Matrix products for the GEMM tests: operands stored row-major or transposed,
// a right operand shared across the batch or not, random values salted with
// signed zeros; and the plain reference loop (each element from +0, k terms
// ascending, one std::fma each) that every GEMM must equal bit for bit.
#pragma once

#include "kernels/gemm.hpp"
#include <topos/core/tensor.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

namespace topos::test {

struct GemmCase {
    std::size_t batches;
    std::size_t rows;
    std::size_t depth;
    std::size_t columns;
    bool transpose_a;  // A stored as [batch][k][m]
    bool transpose_b;  // B stored as [batch][n][k]
    bool shared_b;     // one B for every batch (batch stride 0)
};

template <Element T>
struct GemmOperands {
    std::vector<T> a;
    std::vector<T> b;
    detail::MatrixView<T> a_view;
    detail::MatrixView<T> b_view;
};

// Values in [-1, 1]; one in eight is a zero of random sign.
template <Element T>
std::vector<T> random_values(std::size_t count, std::mt19937& generator) {
    std::uniform_real_distribution<T> uniform(T{-1}, T{1});
    std::vector<T> values(count);
    for (T& value : values) {
        value = uniform(generator);
        if (generator() % 8 == 0) {
            value = std::copysign(T{0}, value);
        }
    }
    return values;
}

template <Element T>
GemmOperands<T> gemm_operands(const GemmCase& c, std::mt19937& generator) {
    const auto size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    GemmOperands<T> o;
    o.a = random_values<T>(c.batches * c.rows * c.depth, generator);
    o.b = random_values<T>((c.shared_b ? 1 : c.batches) * c.depth * c.columns, generator);
    o.a_view = c.transpose_a ? detail::MatrixView<T>{nullptr, 1, size(c.rows), 0}
                             : detail::MatrixView<T>{nullptr, size(c.depth), 1, 0};
    o.a_view.batch_stride = size(c.rows * c.depth);
    o.b_view = c.transpose_b ? detail::MatrixView<T>{nullptr, 1, size(c.depth), 0}
                             : detail::MatrixView<T>{nullptr, size(c.columns), 1, 0};
    o.b_view.batch_stride = c.shared_b ? 0 : size(c.depth * c.columns);
    o.a_view.data = o.a.data();
    o.b_view.data = o.b.data();
    return o;
}

template <Element T>
T element(const detail::MatrixView<T>& m, std::size_t batch, std::size_t i, std::size_t j) {
    return m.data[static_cast<std::ptrdiff_t>(batch) * m.batch_stride +
                  static_cast<std::ptrdiff_t>(i) * m.row_stride +
                  static_cast<std::ptrdiff_t>(j) * m.column_stride];
}

// The reference loop, as a [batches, rows, columns] tensor.
template <Element T>
Tensor<T> reference_product(const GemmCase& c, const GemmOperands<T>& o) {
    std::vector<T> out(c.batches * c.rows * c.columns);
    for (std::size_t batch = 0; batch < c.batches; ++batch) {
        for (std::size_t i = 0; i < c.rows; ++i) {
            for (std::size_t j = 0; j < c.columns; ++j) {
                T sum = T{0};
                for (std::size_t p = 0; p < c.depth; ++p) {
                    sum = std::fma(
                        element(o.a_view, batch, i, p), element(o.b_view, batch, p, j), sum);
                }
                out[(batch * c.rows + i) * c.columns + j] = sum;
            }
        }
    }
    return Tensor<T>({c.batches, c.rows, c.columns}, out);
}

// The GEMM's answer (with micro-kernel options.isa, cut into tiles over the
// pool from options.parallel_threshold multiply-adds), as a [batches, rows,
// columns] tensor.
template <Element T>
Tensor<T> gemm_product(detail::GemmOptions options, const GemmCase& c, const GemmOperands<T>& o) {
    const auto size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    // Filled with NaN, so an element the GEMM fails to write cannot pass.
    std::vector<T> out(c.batches * c.rows * c.columns, std::numeric_limits<T>::quiet_NaN());
    detail::gemm_with<T>(options,
                         {c.batches, c.rows, c.depth, c.columns},
                         o.a_view,
                         o.b_view,
                         {out.data(), size(c.columns), size(c.rows * c.columns)});
    return Tensor<T>({c.batches, c.rows, c.columns}, out);
}

}  // namespace topos::test
