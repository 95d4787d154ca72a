// Network::forward on the contraction and reduction opcodes: MatMul, Sum, Max,
// LogSumExp and LogSoftmax on tiny hand-checked inputs, and the documented
// accumulation orders of Sum (striped over 16 lanes) and MatMul (ascending fma
// from +0) proved with inputs where another order gives other bits; Tensor's
// own sum and mean agree with Sum bit for bit.
#include "support/bit_equal.hpp"
#include "support/forward_oracle.hpp"
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace topos {
namespace {

using test::apply;
using test::apply_to;
using test::bit_equal;
using test::evaluate_f32;
using test::evaluate_f64;
using test::expect_within_one_ulp;
using test::inf;

// ---- matmul ----

TEST(Forward, MultipliesSmallIntegerMatrices) {
    EXPECT_EQ(apply(Opcode::MatMul,
                    {Tensor<double>({2, 2}, {1, 2, 3, 4}), Tensor<double>({2, 2}, {5, 6, 7, 8})}),
              (Tensor<double>({2, 2}, {19, 22, 43, 50})));
    EXPECT_EQ(apply(Opcode::MatMul,
                    {Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor<float>({3, 1}, {1, 0, -1})}),
              (Tensor<float>({2, 1}, {-2, -2})));
    EXPECT_EQ(
        apply(Opcode::MatMul, {Tensor<double>({1, 1}, {3}), Tensor<double>({1, 3}, {1, 2, 3})}),
        (Tensor<double>({1, 3}, {3, 6, 9})));
}

TEST(Forward, AccumulatesMatmulTermsWithOneFusedMultiplyAddEach) {
    // a * a = 1 + 2^-11 + 2^-24 needs 25 bits: unfused, a * a rounds to 1 + 2^-11
    // and the row gives 2^-11; fused, fma(a, a, -1) keeps 2^-11 + 2^-24.
    const float a = 1.0f + 0x1p-12f;
    const Tensor<float> out = apply(
        Opcode::MatMul, {Tensor<float>({1, 2}, {-1.0f, a}), Tensor<float>({2, 1}, {1.0f, a})});
    EXPECT_EQ(out.scalar(), 0x1p-11f + 0x1p-24f);
    const double b = 1.0 + 0x1p-27;
    const Tensor<double> wide = apply(
        Opcode::MatMul, {Tensor<double>({1, 2}, {-1.0, b}), Tensor<double>({2, 1}, {1.0, b})});
    EXPECT_EQ(wide.scalar(), 0x1p-26 + 0x1p-54);
}

TEST(Forward, AccumulatesMatmulTermsInAscendingOrder) {
    // ((0 + 1e8) + -1e8) + 1 = 1 in float; any other order loses the 1.
    const Tensor<float> out =
        apply(Opcode::MatMul,
              {Tensor<float>({1, 3}, {1e8f, -1e8f, 1.0f}), Tensor<float>({3, 1}, {1, 1, 1})});
    EXPECT_EQ(out.scalar(), 1.0f);
    const Tensor<float> reversed =
        apply(Opcode::MatMul,
              {Tensor<float>({1, 3}, {1.0f, -1e8f, 1e8f}), Tensor<float>({3, 1}, {1, 1, 1})});
    EXPECT_EQ(reversed.scalar(), 0.0f);
}

TEST(Forward, StartsMatmulAccumulationAtPositiveZero) {
    // fma(-0, 1, +0) = +0; a start at -0 would give -0.
    const Tensor<double> out =
        apply(Opcode::MatMul, {Tensor<double>({1, 1}, {-0.0}), Tensor<double>({1, 1}, {1.0})});
    EXPECT_TRUE(bit_equal(out, Tensor<double>({1, 1}, {0.0})));
}

// ---- sum: the striped order of src/ops/sum.cpp ----

// Term i goes to partial i mod 16, each partial starts at -0 and adds in
// ascending order; then p[l] += p[l + 8], p[l] += p[l + 4], p[l] += p[l + 2], p[0] += p[1].
template <class T>
T striped_sum(const std::vector<T>& terms) {
    std::array<T, 16> partial;
    partial.fill(T(-0.0));
    for (std::size_t i = 0; i < terms.size(); ++i) {
        partial[i % 16] += terms[i];
    }
    for (std::size_t half : {8, 4, 2, 1}) {
        for (std::size_t lane = 0; lane < half; ++lane) {
            partial[lane] += partial[lane + half];
        }
    }
    return partial[0];
}

template <class T>
T sequential_sum(const std::vector<T>& terms) {
    T total = T(-0.0);
    for (T term : terms) {
        total += term;
    }
    return total;
}

// Lane 0 holds 1e8 and -1e8 (which cancel), lanes 1-15 hold 1 each: striped,
// 15; in sequence, every 1 is absorbed by 1e8 and the total is 0.
std::vector<float> order_sensitive_terms() {
    std::vector<float> terms(17, 1.0f);
    terms[0] = 1e8f;
    terms[16] = -1e8f;
    return terms;
}

TEST(Forward, SumsAllAxesInTheStripedOrder) {
    const std::vector<float> terms = order_sensitive_terms();
    ASSERT_EQ(striped_sum(terms), 15.0f);
    ASSERT_EQ(sequential_sum(terms), 0.0f);  // the input tells the orders apart
    const Tensor<float> out = evaluate_f32(
        [&](Tape<float>& tape) { return tape.parameter(Tensor<float>(Shape{17}, terms)).sum(); });
    EXPECT_TRUE(bit_equal(out, Tensor<float>(15.0f)));
}

TEST(Forward, SumsLongRandomRowsBitForBitInTheStripedOrder) {
    // Every third term is large, the others small: rounding depends on the order.
    std::vector<float> terms;
    for (int i = 0; i < 203; ++i) {
        const float x = static_cast<float>((i * 7919) % 1013) / 1013.0f - 0.5f;
        terms.push_back((i % 3 == 0 ? 1e6f : 0.37f) * x);
    }
    ASSERT_NE(striped_sum(terms), sequential_sum(terms));
    const Tensor<float> out = evaluate_f32([&](Tape<float>& tape) {
        return tape.parameter(Tensor<float>(Shape{7, 29}, terms)).sum();
    });
    EXPECT_TRUE(bit_equal(out, Tensor<float>(striped_sum(terms))));
}

TEST(Forward, SumsAlongTheLastAxisInTheStripedOrder) {
    // Two rows of 17: each output is the striped sum of its row.
    std::vector<float> rows = order_sensitive_terms();
    std::vector<float> second = order_sensitive_terms();
    second[5] = 2.0f;
    rows.insert(rows.end(), second.begin(), second.end());
    const Tensor<float> out = evaluate_f32([&](Tape<float>& tape) {
        return tape.parameter(Tensor<float>(Shape{2, 17}, rows)).sum(1);
    });
    EXPECT_TRUE(bit_equal(out, Tensor<float>({2}, {15.0f, 16.0f})));
}

TEST(Forward, SumsAlongALeadingAxisInTheStripedOrder) {
    // [17, 2]: column 0 holds the order-sensitive terms, column 1 their negation.
    const std::vector<float> terms = order_sensitive_terms();
    std::vector<float> matrix;
    for (float term : terms) {
        matrix.push_back(term);
        matrix.push_back(-term);
    }
    const Tensor<float> out = evaluate_f32([&](Tape<float>& tape) {
        return tape.parameter(Tensor<float>(Shape{17, 2}, matrix)).sum(0);
    });
    EXPECT_TRUE(bit_equal(out, Tensor<float>({2}, {15.0f, -15.0f})));
    // And along the middle axis of [2, 17, 1].
    std::vector<float> stacked = terms;
    stacked.insert(stacked.end(), terms.begin(), terms.end());
    const Tensor<float> middle = evaluate_f32([&](Tape<float>& tape) {
        return tape.parameter(Tensor<float>(Shape{2, 17, 1}, stacked)).sum(1);
    });
    EXPECT_TRUE(bit_equal(middle, Tensor<float>({2, 1}, {15.0f, 15.0f})));
}

TEST(Forward, StartsEveryPartialSumAtNegativeZero) {
    // -0 + -0 = -0, so a sum of negative zeros is -0; a +0 start would give +0.
    const Tensor<double> all = evaluate_f64([](Tape<double>& tape) {
        return tape.parameter(Tensor<double>::filled({3, 2}, -0.0)).sum();
    });
    EXPECT_TRUE(bit_equal(all, Tensor<double>(-0.0)));
    const Tensor<double> along = evaluate_f64([](Tape<double>& tape) {
        return tape.parameter(Tensor<double>::filled({3, 2}, -0.0)).sum(0);
    });
    EXPECT_TRUE(bit_equal(along, Tensor<double>({2}, {-0.0, -0.0})));
}

TEST(Forward, SumsSmallIntegerTensors) {
    const Tensor<double> x({2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(apply(Opcode::Sum, {x}), Tensor<double>(21.0));
    EXPECT_EQ(apply(Opcode::Sum, {x}, AxisAttributes{0}), (Tensor<double>({3}, {5, 7, 9})));
    EXPECT_EQ(apply(Opcode::Sum, {x}, AxisAttributes{1}), (Tensor<double>({2}, {6, 15})));
    EXPECT_EQ(apply(Opcode::Sum, {Tensor<double>(4.0)}), Tensor<double>(4.0));
}

// Tensor::sum and mean, computed in the payload layer for metrics, promise the
// bits of the recorded Sum (and Value::mean) on the vectorised paths too.
template <Element T>
Tensor<T> order_sensitive(Shape shape) {
    return Tensor<T>::generate(shape, [](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            const T x = static_cast<T>((i * 7919) % 1013) / T{1013} - T{0.5};
            out[i] = (i % 3 == 0 ? T{1e6} : T{0.37}) * x;
        }
    });
}

template <Element T>
void expect_tensor_sums_match_the_sum_opcode(const Tensor<T>& x) {
    EXPECT_TRUE(bit_equal(Tensor<T>(x.sum()), apply_to<T>(Opcode::Sum, {x}, {})));
    for (std::size_t axis = 0; axis < x.shape().rank(); ++axis) {
        EXPECT_TRUE(bit_equal(x.sum(axis), apply_to<T>(Opcode::Sum, {x}, AxisAttributes{axis})))
            << "axis " << axis << " of " << x.shape();
    }
}

TEST(Forward, TensorSumsGiveTheBitsOfTheSumOpcode) {
    expect_tensor_sums_match_the_sum_opcode(order_sensitive<float>({7, 203}));
    expect_tensor_sums_match_the_sum_opcode(order_sensitive<float>({3, 40, 5}));
    expect_tensor_sums_match_the_sum_opcode(order_sensitive<double>({7, 203}));
    expect_tensor_sums_match_the_sum_opcode(order_sensitive<double>({3, 40, 5}));
    const Tensor<float> x = order_sensitive<float>({9, 31});
    const Tensor<float> mean =
        evaluate_f32([&](Tape<float>& tape) { return tape.parameter(x).mean(); });
    EXPECT_TRUE(bit_equal(Tensor<float>(x.mean()), mean));
    const Tensor<float> mean_along =
        evaluate_f32([&](Tape<float>& tape) { return tape.parameter(x).mean(1); });
    EXPECT_TRUE(bit_equal(x.mean(1), mean_along));
}

// ---- the rest of the catalog ----

TEST(Forward, TakesTheMaximumAlongAnAxis) {
    const Tensor<double> x({2, 3}, {1, 5, 3, 7, 2, 7});
    EXPECT_EQ(apply(Opcode::Max, {x}, AxisAttributes{1}), (Tensor<double>({2}, {5, 7})));
    EXPECT_EQ(apply(Opcode::Max, {x}, AxisAttributes{0}), (Tensor<double>({3}, {7, 5, 7})));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Tensor<double> with_nan =
        apply(Opcode::Max, {Tensor<double>({2, 2}, {nan, 1, 1, nan})}, AxisAttributes{1});
    EXPECT_TRUE(std::isnan(with_nan.data()[0]));
    EXPECT_TRUE(std::isnan(with_nan.data()[1]));
    EXPECT_EQ(apply(Opcode::Max, {Tensor<double>({1}, {-inf})}, AxisAttributes{0}).scalar(), -inf);
}

TEST(Forward, TakesLogSumExpStablyAlongAnAxis) {
    const Tensor<double> out = apply(Opcode::LogSumExp,
                                     {Tensor<double>({3, 2}, {0, 0, 1000, 1000, -inf, -inf})},
                                     AxisAttributes{1});
    expect_within_one_ulp(out.data()[0], std::log(2.0L));
    expect_within_one_ulp(out.data()[1], 1000.0L + std::log(2.0L));  // no overflow
    EXPECT_EQ(out.data()[2], -inf);
    EXPECT_EQ(apply(Opcode::LogSumExp, {Tensor<double>({2}, {inf, 0})}, AxisAttributes{0}).scalar(),
              inf);
}

TEST(Forward, TakesLogSoftmaxStablyAlongAnAxis) {
    const Tensor<double> out =
        apply(Opcode::LogSoftmax, {Tensor<double>({2, 2}, {0, 0, 1000, 0})}, AxisAttributes{1});
    expect_within_one_ulp(out.data()[0], -std::log(2.0L));
    expect_within_one_ulp(out.data()[1], -std::log(2.0L));
    // 1000 - (1000 + log(1 + e^-1000)) rounds to 0 exactly, and 0 - 1000 to -1000.
    EXPECT_EQ(out.data()[2], 0.0);
    EXPECT_EQ(out.data()[3], -1000.0);
}

TEST(Forward, MultipliesBatchesOfMatrices) {
    // Batch 0: [1 2] [1 1]^T = 3; batch 1: [3 4] [2 0]^T = 6.
    EXPECT_EQ(
        apply(Opcode::MatMul,
              {Tensor<double>({2, 1, 2}, {1, 2, 3, 4}), Tensor<double>({2, 2, 1}, {1, 1, 2, 0})}),
        (Tensor<double>({2, 1, 1}, {3, 6})));
}

}  // namespace
}  // namespace topos
