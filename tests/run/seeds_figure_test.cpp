// The seeds' Exact-and-Fast figure: tanh(batch w) summed, w = xavier(3) at
// [64, 64], batch = normal(5, 1) at [32, 64], in float. Its last digits depend
// on the order of the product's and the sum's additions, and docs/exact-math.md
// says which order gives which digits. These tests recompute the figure with
// plain loops: in topos's documented order they must give the interpreter's and
// an Exact plan's bits; in the original design's order (a multiply and an add a
// term, a left fold) they give its own digits, which differ from topos's by a
// few units in the last place and not by more.
#include "core/exact_math.hpp"
#include "kernels/striped_sum.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace topos {
namespace {
namespace seeds_figure {

constexpr std::size_t rows = 32;
constexpr std::size_t depth = 64;

struct Operands {
    Tensor<float> weights = init::xavier(3)(Shape{depth, depth});
    Tensor<float> batch = init::normal(5, 1.0)(Shape{rows, depth});
};

// tanh(product(i, j)) for every output, then summed by `sum`.
template <class Product, class Sum>
float figure(const Operands& operands, Product product, Sum sum) {
    std::vector<float> activations;
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < depth; ++j) {
            const float z = product(operands.batch.data().data() + i * depth,
                                    operands.weights.data().data() + j);
            activations.push_back(static_cast<float>(exact::tanh(static_cast<double>(z))));
        }
    }
    return sum(activations);
}

// topos: each output an fma chain from +0 in ascending k.
float fma_chain(const float* row, const float* column) {
    float total = 0.0f;
    for (std::size_t k = 0; k < depth; ++k) {
        total = std::fma(row[k], column[k * depth], total);
    }
    return total;
}

// The original: the first product, then a rounded product added a term.
float multiply_then_add(const float* row, const float* column) {
    float total = row[0] * column[0];
    for (std::size_t k = 1; k < depth; ++k) {
        const float term = row[k] * column[k * depth];
        total = total + term;
    }
    return total;
}

float striped(const std::vector<float>& terms) {
    return detail::striped_sum<float>(terms.size(), [&](std::size_t a) { return terms[a]; });
}

float left_fold(const std::vector<float>& terms) {
    float total = terms[0];
    for (std::size_t a = 1; a < terms.size(); ++a) {
        total = total + terms[a];
    }
    return total;
}

struct Seeds {
    Network<float> network;
    Symbol loss;
};

Seeds seeds_network() {
    Tape<float> tape;
    auto weights = tape.parameter(init::xavier(3)(Shape{depth, depth}));
    auto batch = tape.input(init::normal(5, 1.0)(Shape{rows, depth}));
    const Symbol loss = batch.matmul(weights).tanh().sum();
    return {std::move(tape).into_network(), loss};
}

TEST(SeedsFigure, TheInterpreterAndAnExactPlanFollowTheDocumentedOrder) {
    const Operands operands;
    const float documented = figure(operands, fma_chain, striped);
    const Seeds seeds = seeds_network();
    const Parameters<float> parameters = seeds.network.parameters();
    const float interpreted = seeds.network.forward(parameters).of(seeds.loss).scalar();
    const float planned = seeds.network.entry({seeds.loss})
                              .numerics(Numerics::Exact)
                              .lower()
                              .forward(parameters, {})
                              .of(seeds.loss)
                              .scalar();
    EXPECT_EQ(interpreted, documented);
    EXPECT_EQ(planned, documented);
}

TEST(SeedsFigure, TheOriginalsOrderDiffersOnlyInTheLastDigits) {
    const Operands operands;
    const float documented = figure(operands, fma_chain, striped);
    const float original = figure(operands, multiply_then_add, left_fold);
    EXPECT_NE(original, documented);
    // Within 16 units in the last place of a value near 16 (2^-19 each).
    EXPECT_NEAR(original, documented, 16 * 0x1p-19);
    double exact = 0;  // the same activations summed in double, for scale
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < depth; ++j) {
            double z = 0;
            for (std::size_t k = 0; k < depth; ++k) {
                z += static_cast<double>(operands.batch(i, k)) * operands.weights(k, j);
            }
            exact += std::tanh(z);
        }
    }
    EXPECT_NEAR(documented, exact, 8 * 0x1p-19);
}

}  // namespace seeds_figure
}  // namespace
}  // namespace topos
