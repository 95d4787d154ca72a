// Network::forward, the whole-spec oracle: each opcode on tiny hand-checked
// inputs with exact expected values, the documented accumulation orders of Sum
// (striped over 16 lanes), MatMul (ascending fma from +0) and Fold (ascending
// windows from +0) proved with inputs where another order gives other bits,
// feeds overlaying defaults, and the errors for feeds, symbols and parameters
// that belong elsewhere.
#include "support/bit_equal.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Records f(tape) on a fresh tape, seals it and returns the value of f's result.
template <class T>
Tensor<T> evaluate(const std::function<Value<T>(Tape<T>&)>& f) {
    Tape<T> tape;
    const Symbol result = f(tape);
    const Network<T> network = std::move(tape).into_network();
    return network.forward(network.parameters()).of(result);
}

Tensor<double> evaluate_f64(const std::function<Value<double>(Tape<double>&)>& f) {
    return evaluate<double>(f);
}

Tensor<float> evaluate_f32(const std::function<Value<float>(Tape<float>&)>& f) {
    return evaluate<float>(f);
}

template <class T>
std::vector<T> elements(const Tensor<T>& tensor) {
    return {tensor.data().begin(), tensor.data().end()};
}

// Records one application of `opcode` to parameters holding `operands`.
template <class T>
Tensor<T> apply_to(Opcode opcode,
                   const std::vector<Tensor<T>>& operands,
                   const Attributes& attributes) {
    return evaluate<T>([&](Tape<T>& tape) {
        std::vector<Value<T>> values;
        for (const Tensor<T>& operand : operands) {
            values.push_back(tape.parameter(operand));
        }
        if (values.size() == 1) {
            return values[0].apply(opcode, {values[0]}, attributes);
        }
        if (values.size() == 2) {
            return values[0].apply(opcode, {values[0], values[1]}, attributes);
        }
        return values[0].apply(opcode, {values[0], values[1], values[2]}, attributes);
    });
}

Tensor<double> apply(Opcode opcode,
                     std::initializer_list<Tensor<double>> operands,
                     const Attributes& attributes = {}) {
    return apply_to<double>(opcode, operands, attributes);
}

Tensor<float> apply(Opcode opcode,
                    std::initializer_list<Tensor<float>> operands,
                    const Attributes& attributes = {}) {
    return apply_to<float>(opcode, operands, attributes);
}

Tensor<double> iota(const Shape& shape, double first = 0.0) {
    return Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = first + static_cast<double>(i);
        }
    });
}

constexpr double inf = std::numeric_limits<double>::infinity();

// ---- elementwise ----

TEST(Forward, AddsSubtractsAndMultipliesElementwise) {
    const Tensor<double> a({2, 2}, {1, 2, 3, 4});
    const Tensor<double> b({2, 2}, {10, 20, 30, 40});
    EXPECT_EQ(apply(Opcode::Add, {a, b}), (Tensor<double>({2, 2}, {11, 22, 33, 44})));
    EXPECT_EQ(apply(Opcode::Sub, {a, b}), (Tensor<double>({2, 2}, {-9, -18, -27, -36})));
    EXPECT_EQ(apply(Opcode::Mul, {a, b}), (Tensor<double>({2, 2}, {10, 40, 90, 160})));
}

TEST(Forward, DividesWithIeeeInfinitiesAndNaN) {
    const Tensor<double> out =
        apply(Opcode::Div, {Tensor<double>({4}, {1, -3, 1, 0}), Tensor<double>({4}, {4, 2, 0, 0})});
    EXPECT_EQ(out.data()[0], 0.25);
    EXPECT_EQ(out.data()[1], -1.5);
    EXPECT_EQ(out.data()[2], inf);
    EXPECT_TRUE(std::isnan(out.data()[3]));
}

TEST(Forward, TakesTheMaximumAndPropagatesNaNFromEitherSide) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Tensor<double> out =
        apply(Opcode::Maximum,
              {Tensor<double>({5}, {1, 5, -2, nan, 0}), Tensor<double>({5}, {3, 2, -2, 0, nan})});
    EXPECT_EQ(out.data()[0], 3);
    EXPECT_EQ(out.data()[1], 5);
    EXPECT_EQ(out.data()[2], -2);
    EXPECT_TRUE(std::isnan(out.data()[3]));
    EXPECT_TRUE(std::isnan(out.data()[4]));
}

TEST(Forward, MasksGreaterOrEqualAsOnesAndZeros) {
    EXPECT_EQ(apply(Opcode::Compare,
                    {Tensor<float>({4}, {1, 2, 3, -0.0f}), Tensor<float>({4}, {2, 2, 2, 0.0f})},
                    CompareAttributes{Comparison::GreaterEqual}),
              (Tensor<float>({4}, {0, 1, 1, 1})));
}

TEST(Forward, ComparesInEveryDirectionWithNaNComparingFalse) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Tensor<double> a({4}, {1, 2, 3, nan});
    const Tensor<double> b({4}, {2, 2, 2, 1});
    const auto mask = [&](Comparison direction) {
        return apply(Opcode::Compare, {a, b}, CompareAttributes{direction});
    };
    EXPECT_EQ(mask(Comparison::Equal), (Tensor<double>({4}, {0, 1, 0, 0})));
    EXPECT_EQ(mask(Comparison::NotEqual), (Tensor<double>({4}, {1, 0, 1, 1})));
    EXPECT_EQ(mask(Comparison::Less), (Tensor<double>({4}, {1, 0, 0, 0})));
    EXPECT_EQ(mask(Comparison::LessEqual), (Tensor<double>({4}, {1, 1, 0, 0})));
    EXPECT_EQ(mask(Comparison::Greater), (Tensor<double>({4}, {0, 0, 1, 0})));
}

TEST(Forward, NegatesIncludingZero) {
    const Tensor<double> out = apply(Opcode::Neg, {Tensor<double>({3}, {1, -2, 0})});
    EXPECT_TRUE(bit_equal(out, Tensor<double>({3}, {-1, 2, -0.0})));
}

TEST(Forward, EvaluatesTheTranscendentalsExactlyWhereTheyAreExact) {
    EXPECT_EQ(apply(Opcode::Exp, {Tensor<double>({2}, {0, -inf})}), (Tensor<double>({2}, {1, 0})));
    EXPECT_EQ(apply(Opcode::Log, {Tensor<double>({2}, {1, 0})}), (Tensor<double>({2}, {0, -inf})));
    EXPECT_TRUE(std::isnan(apply(Opcode::Log, {Tensor<double>(-1.0)}).scalar()));
    EXPECT_EQ(apply(Opcode::Tanh, {Tensor<double>({3}, {0, 40, -40})}),
              (Tensor<double>({3}, {0, 1, -1})));
    EXPECT_EQ(apply(Opcode::Sigmoid, {Tensor<float>({1}, {0})}), (Tensor<float>({1}, {0.5f})));
    EXPECT_EQ(apply(Opcode::Exp, {Tensor<float>({1}, {0})}), (Tensor<float>({1}, {1})));
}

// Within one unit in the last place of the correctly rounded value (the exact
// math functions' documented bound), measured against long double.
template <class T>
void expect_within_one_ulp(T actual, long double reference) {
    const T nearest = static_cast<T>(reference);
    const T ulp = std::nextafter(nearest, std::numeric_limits<T>::infinity()) - nearest;
    EXPECT_LE(std::abs(static_cast<long double>(actual) - reference), static_cast<long double>(ulp))
        << actual << " vs " << static_cast<double>(reference);
}

TEST(Forward, EvaluatesTheTranscendentalsWithinOneUlp) {
    const std::vector<double> xs{-2.5, -1.0, -0.3, 0.3, 1.0, 2.5};
    const Tensor<double> x(Shape{xs.size()}, xs);
    const Tensor<double> e = apply(Opcode::Exp, {x});
    const Tensor<double> t = apply(Opcode::Tanh, {x});
    const Tensor<double> s = apply(Opcode::Sigmoid, {x});
    const Tensor<double> l = apply(Opcode::Log, {Tensor<double>(Shape{3}, {0.5, 2.0, 10.0})});
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const long double v = xs[i];
        expect_within_one_ulp(e.data()[i], std::exp(v));
        expect_within_one_ulp(t.data()[i], std::tanh(v));
        expect_within_one_ulp(s.data()[i], 1.0L / (1.0L + std::exp(-v)));
    }
    expect_within_one_ulp(l.data()[0], std::log(0.5L));
    expect_within_one_ulp(l.data()[1], std::log(2.0L));
    expect_within_one_ulp(l.data()[2], std::log(10.0L));
}

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

// ---- layout ----

TEST(Forward, ReshapesWithoutMovingElements) {
    const Tensor<double> out =
        apply(Opcode::Reshape, {iota({2, 3})}, ReshapeAttributes{Shape{3, 1, 2}});
    EXPECT_EQ(out, (Tensor<double>({3, 1, 2}, {0, 1, 2, 3, 4, 5})));
}

TEST(Forward, PermutesAxesSoOutputAxisIReadsOperandAxisOrderI) {
    EXPECT_EQ(apply(Opcode::Permute, {iota({2, 3})}, PermuteAttributes{Axes{1, 0}}),
              (Tensor<double>({3, 2}, {0, 3, 1, 4, 2, 5})));
    // [2, 3, 4] with order [2, 0, 1]: out[k][i][j] = in[i][j][k].
    const Tensor<double> in = iota({2, 3, 4});
    const Tensor<double> out = apply(Opcode::Permute, {in}, PermuteAttributes{Axes{2, 0, 1}});
    ASSERT_EQ(out.shape(), (Shape{4, 2, 3}));
    for (std::size_t i = 0; i < 2; ++i) {
        for (std::size_t j = 0; j < 3; ++j) {
            for (std::size_t k = 0; k < 4; ++k) {
                EXPECT_EQ(out.data()[k * 6 + i * 3 + j], in.data()[i * 12 + j * 4 + k]);
            }
        }
    }
}

TEST(Forward, BroadcastsAlongANewAxis) {
    const Tensor<double> x({2}, {1, 2});
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {x}, BroadcastAttributes{0, 3}),
              (Tensor<double>({3, 2}, {1, 2, 1, 2, 1, 2})));
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {x}, BroadcastAttributes{1, 2}),
              (Tensor<double>({2, 2}, {1, 1, 2, 2})));
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {Tensor<double>(7.0)}, BroadcastAttributes{0, 2}),
              (Tensor<double>({2}, {7, 7})));
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {iota({2, 2})}, BroadcastAttributes{1, 2}),
              (Tensor<double>({2, 2, 2}, {0, 1, 0, 1, 2, 3, 2, 3})));
}

TEST(Forward, UnfoldsSlidingWindows) {
    const Tensor<double> x = iota({5});
    EXPECT_EQ(apply(Opcode::Unfold, {x}, WindowAttributes{0, 3, 1, 1}),
              (Tensor<double>({3, 3}, {0, 1, 2, 1, 2, 3, 2, 3, 4})));
    EXPECT_EQ(apply(Opcode::Unfold, {x}, WindowAttributes{0, 3, 2, 1}),
              (Tensor<double>({2, 3}, {0, 1, 2, 2, 3, 4})));
    // Dilation 2: element w of window c reads c + 2 w.
    EXPECT_EQ(apply(Opcode::Unfold, {x}, WindowAttributes{0, 2, 1, 2}),
              (Tensor<double>({3, 2}, {0, 2, 1, 3, 2, 4})));
    // Along a leading axis the window axis comes right after it: out[c][w][j] = in[c + w][j].
    EXPECT_EQ(apply(Opcode::Unfold, {iota({3, 2})}, WindowAttributes{0, 2, 1, 1}),
              (Tensor<double>({2, 2, 2}, {0, 1, 2, 3, 2, 3, 4, 5})));
}

TEST(Forward, FoldsWindowsBackBySumming) {
    EXPECT_EQ(
        apply(Opcode::Fold, {Tensor<double>::filled({3, 3}, 1.0)}, FoldAttributes{0, 3, 1, 1, 5}),
        (Tensor<double>({5}, {1, 2, 3, 2, 1})));
    // Step 2 over 5 positions: windows [0, 1, 2] and [2, 3, 4] overlap at 2.
    EXPECT_EQ(apply(Opcode::Fold,
                    {Tensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})},
                    FoldAttributes{0, 3, 2, 1, 5}),
              (Tensor<double>({5}, {1, 2, 7, 5, 6})));
    // Step 3 over 5 positions with windows of 2: position 2 receives nothing.
    EXPECT_EQ(
        apply(Opcode::Fold, {Tensor<double>({2, 2}, {1, 2, 3, 4})}, FoldAttributes{0, 2, 3, 1, 5}),
        (Tensor<double>({5}, {1, 2, 0, 3, 4})));
    // Along a leading axis: [count 2, size 2, 2] into [3, 2].
    EXPECT_EQ(apply(Opcode::Fold, {iota({2, 2, 2})}, FoldAttributes{0, 2, 1, 1, 3}),
              (Tensor<double>({3, 2}, {0, 1, 6, 8, 6, 7})));
}

TEST(Forward, FoldsInAscendingWindowOrderFromPositiveZero) {
    // Windows of 3, step 1 over 5 positions: position 2 reads (c0 w2), (c1 w1),
    // (c2 w0) in that order. ((+0 + 1e8) - 1e8) + 1 = 1; reversed, 1 is absorbed.
    std::vector<float> windows(9, 0.0f);
    windows[0 * 3 + 2] = 1e8f;
    windows[1 * 3 + 1] = -1e8f;
    windows[2 * 3 + 0] = 1.0f;
    const Tensor<float> out =
        apply(Opcode::Fold, {Tensor<float>(Shape{3, 3}, windows)}, FoldAttributes{0, 3, 1, 1, 5});
    EXPECT_EQ(out.data()[2], 1.0f);
    // +0 + -0 = +0: a position that reads only negative zeros is +0.
    const Tensor<float> zeros =
        apply(Opcode::Fold, {Tensor<float>::filled({2, 2}, -0.0f)}, FoldAttributes{0, 2, 1, 1, 3});
    EXPECT_TRUE(bit_equal(zeros, Tensor<float>({3}, {0.0f, 0.0f, 0.0f})));
}

TEST(Forward, NarrowsToAWindowOfOneAxis) {
    EXPECT_EQ(apply(Opcode::Narrow, {iota({6})}, NarrowAttributes{0, 1, 3}),
              (Tensor<double>({3}, {1, 2, 3})));
    EXPECT_EQ(apply(Opcode::Narrow, {iota({2, 3})}, NarrowAttributes{1, 1, 2}),
              (Tensor<double>({2, 2}, {1, 2, 4, 5})));
    EXPECT_EQ(apply(Opcode::Narrow, {iota({3, 2})}, NarrowAttributes{0, 2, 1}),
              (Tensor<double>({1, 2}, {4, 5})));
}

TEST(Forward, PadsOneAxisWithZeros) {
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({2}, {1, 2})}, PadAttributes{0, 1, 2}),
              (Tensor<double>({5}, {0, 1, 2, 0, 0})));
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({2, 2}, {1, 2, 3, 4})}, PadAttributes{1, 1, 0}),
              (Tensor<double>({2, 3}, {0, 1, 2, 0, 3, 4})));
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({1, 2}, {1, 2})}, PadAttributes{0, 0, 1}),
              (Tensor<double>({2, 2}, {1, 2, 0, 0})));
}

// ---- the rest of the catalog ----

TEST(Forward, TakesTheMinimumAndPropagatesNaNFromEitherSide) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Tensor<double> out =
        apply(Opcode::Minimum,
              {Tensor<double>({5}, {1, 5, -2, nan, 0}), Tensor<double>({5}, {3, 2, -2, 0, nan})});
    EXPECT_EQ(out.data()[0], 1);
    EXPECT_EQ(out.data()[1], 2);
    EXPECT_EQ(out.data()[2], -2);
    EXPECT_TRUE(std::isnan(out.data()[3]));
    EXPECT_TRUE(std::isnan(out.data()[4]));
}

TEST(Forward, RaisesToPowersExactlyWhereTheResultIsExact) {
    // Small integer powers, powers of two and exact square roots are exact
    // (docs/exact-math.md), as are the IEEE special cases x^0 = 1 and 1^y = 1.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Tensor<double> out = apply(Opcode::Pow,
                                     {Tensor<double>({7}, {2, 4, 2, 5, 1, -2, -2}),
                                      Tensor<double>({7}, {3, 0.5, -1, 0, nan, 2, 3})});
    EXPECT_EQ(out, (Tensor<double>({7}, {8, 2, 0.5, 1, 1, 4, -8})));
    EXPECT_TRUE(
        std::isnan(apply(Opcode::Pow, {Tensor<double>(-8.0), Tensor<double>(1.0 / 3)}).scalar()));
}

TEST(Forward, SelectsTheFirstBranchWhereTheMaskIsNonZero) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(apply(Opcode::Select,
                    {Tensor<double>({5}, {1, 0, 2.5, -0.0, nan}),
                     Tensor<double>({5}, {1, 2, 3, 4, 5}),
                     Tensor<double>({5}, {10, 20, 30, 40, 50})}),
              (Tensor<double>({5}, {1, 20, 3, 40, 5})));
}

TEST(Forward, TakesAbsoluteValuesAndSigns) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(bit_equal(apply(Opcode::Abs, {Tensor<double>({3}, {-1.5, 2, -0.0})}),
                          Tensor<double>({3}, {1.5, 2, 0.0})));
    const Tensor<double> sign =
        apply(Opcode::Sign, {Tensor<double>({5}, {-3, 0.5, -0.0, 0.0, nan})});
    // Zeros keep their sign and a NaN passes through unchanged (same bits).
    EXPECT_TRUE(bit_equal(sign, Tensor<double>({5}, {-1, 1, -0.0, 0.0, nan})));
}

TEST(Forward, EvaluatesTheCatalogsFunctionsExactlyWhereTheyAreExact) {
    const Tensor<double> zero({1}, {0.0});
    EXPECT_EQ(apply(Opcode::Expm1, {zero}), zero);
    EXPECT_EQ(apply(Opcode::Log1p, {zero}), zero);
    EXPECT_EQ(apply(Opcode::Sin, {zero}), zero);
    EXPECT_EQ(apply(Opcode::Cos, {zero}), (Tensor<double>({1}, {1.0})));
    EXPECT_EQ(apply(Opcode::Erf, {zero}), zero);
    EXPECT_EQ(apply(Opcode::Gelu, {zero}), zero);
    EXPECT_EQ(apply(Opcode::Sqrt, {Tensor<double>({3}, {4, 0, 2.25})}),
              (Tensor<double>({3}, {2, 0, 1.5})));
    // sqrt is IEEE's correctly rounded square root.
    EXPECT_EQ(apply(Opcode::Sqrt, {Tensor<double>(2.0)}).scalar(), std::sqrt(2.0));
    EXPECT_EQ(apply(Opcode::Rsqrt, {Tensor<double>({2}, {4, 0.25})}),
              (Tensor<double>({2}, {0.5, 2})));
    EXPECT_EQ(apply(Opcode::Square, {Tensor<double>({3}, {3, -1.5, -0.0})}),
              (Tensor<double>({3}, {9, 2.25, 0})));
    EXPECT_EQ(apply(Opcode::Erf, {Tensor<double>({2}, {40, -40})}), (Tensor<double>({2}, {1, -1})));
}

TEST(Forward, EvaluatesTheCatalogsFunctionsWithinOneUlp) {
    const std::vector<double> xs{-2.5, -1.0, -0.3, 0.3, 1.0, 2.5};
    const Tensor<double> x(Shape{xs.size()}, xs);
    const Tensor<double> expm1 = apply(Opcode::Expm1, {x});
    const Tensor<double> log1p = apply(Opcode::Log1p, {Tensor<double>(Shape{3}, {-0.5, 0.3, 2.5})});
    const Tensor<double> sin = apply(Opcode::Sin, {x});
    const Tensor<double> cos = apply(Opcode::Cos, {x});
    const Tensor<double> erf = apply(Opcode::Erf, {x});
    const Tensor<double> gelu = apply(Opcode::Gelu, {x});
    const Tensor<double> softplus = apply(Opcode::Softplus, {x});
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const long double v = xs[i];
        expect_within_one_ulp(expm1.data()[i], std::expm1(v));
        expect_within_one_ulp(sin.data()[i], std::sin(v));
        expect_within_one_ulp(cos.data()[i], std::cos(v));
        expect_within_one_ulp(erf.data()[i], std::erf(v));
        expect_within_one_ulp(gelu.data()[i], v * (1.0L + std::erf(v / std::sqrt(2.0L))) / 2.0L);
        expect_within_one_ulp(softplus.data()[i], std::log1p(std::exp(v)));
    }
    expect_within_one_ulp(log1p.data()[0], std::log1p(-0.5L));
    expect_within_one_ulp(log1p.data()[1], std::log1p(0.3L));
    expect_within_one_ulp(log1p.data()[2], std::log1p(2.5L));
}

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

TEST(Forward, SlicesEveryStepThPosition) {
    EXPECT_EQ(apply(Opcode::Slice, {iota({7})}, SliceAttributes{0, 1, 3, 2}),
              (Tensor<double>({3}, {1, 3, 5})));
    EXPECT_EQ(apply(Opcode::Slice, {iota({3, 2})}, SliceAttributes{0, 0, 2, 2}),
              (Tensor<double>({2, 2}, {0, 1, 4, 5})));
}

TEST(Forward, PadsWithInteriorZeros) {
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({3}, {1, 2, 3})}, PadAttributes{0, 1, 0, 1}),
              (Tensor<double>({6}, {0, 1, 0, 2, 0, 3})));
}

TEST(Forward, ConcatenatesAlongAnAxis) {
    EXPECT_EQ(apply(Opcode::Concat,
                    {Tensor<double>({2}, {1, 2}), Tensor<double>({1}, {3})},
                    AxisAttributes{0}),
              (Tensor<double>({3}, {1, 2, 3})));
    EXPECT_EQ(apply(Opcode::Concat,
                    {Tensor<double>({2, 1}, {1, 2}), Tensor<double>({2, 2}, {3, 4, 5, 6})},
                    AxisAttributes{1}),
              (Tensor<double>({2, 3}, {1, 3, 4, 2, 5, 6})));
}

// The value of f(tape, indices) with `indices` recorded by tape.indices.
Tensor<double> with_indices(const Tensor<double>& indices,
                            const std::function<Value<double>(Tape<double>&, Value<double>)>& f) {
    return evaluate_f64([&](Tape<double>& tape) { return f(tape, tape.indices(indices)); });
}

TEST(Forward, GathersRowsByIndex) {
    const Tensor<double> table({3, 2}, {1, 2, 3, 4, 5, 6});
    const auto gather_from = [&](Tape<double>& tape, Value<double> picks) {
        const Value<double> t = tape.parameter(table);
        return t.apply(Opcode::Gather, {t, picks});
    };
    EXPECT_EQ(with_indices(Tensor<double>({3}, {2, 0, 2}), gather_from),
              (Tensor<double>({3, 2}, {5, 6, 1, 2, 5, 6})));
    EXPECT_EQ(with_indices(Tensor<double>(1.0), gather_from), (Tensor<double>({2}, {3, 4})));
}

TEST(Forward, ScatterAddsRowsInAscendingPickOrder) {
    const Tensor<double> out =
        with_indices(Tensor<double>({3}, {2, 0, 2}), [](Tape<double>& tape, Value<double> picks) {
            const Value<double> updates =
                tape.parameter(Tensor<double>({3, 2}, {1, 2, 3, 4, 5, 6}));
            return picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{3});
        });
    EXPECT_EQ(out, (Tensor<double>({3, 2}, {3, 4, 0, 0, 6, 8})));
}

TEST(Forward, EncodesIndicesOneHot) {
    const Tensor<double> out =
        with_indices(Tensor<double>({2}, {2, 0}),
                     [](Tape<double>&, Value<double> picks) { return picks.one_hot(3); });
    EXPECT_EQ(out, (Tensor<double>({2, 3}, {0, 0, 1, 1, 0, 0})));
}

TEST(Forward, RejectsAnIndexOutsideItsRangeAtRunTime) {
    auto [network, picks, rows] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> table = tape.parameter(Tensor<double>({3, 1}, {1, 2, 3}));
        const Value<double> picks = tape.indices(Tensor<double>({1}, {0}));
        return detach(picks, table.apply(Opcode::Gather, {table, picks}));
    });
    const Parameters<double> parameters = network.parameters();
    EXPECT_EQ(network.forward(parameters, {{picks, Tensor<double>({1}, {2})}}).of(rows).scalar(),
              3.0);
    try {
        (void)network.forward(parameters, {{picks, Tensor<double>({1}, {3})}});
        FAIL() << "index 3 of 3 rows was read";
    } catch (const IndexError& error) {
        EXPECT_THAT(error.what(), AllOf(HasSubstr("Gather"), HasSubstr("3")));
    }
    EXPECT_THROW((void)network.forward(parameters, {{picks, Tensor<double>({1}, {-1})}}),
                 IndexError);
}

TEST(Forward, RejectsAFeedOfIndicesThatAreNotIntegers) {
    auto [network, picks, encoded] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> picks = tape.indices(Tensor<double>({1}, {0}));
        return detach(picks, picks.one_hot(2));
    });
    EXPECT_THROW((void)network.forward(network.parameters(), {{picks, Tensor<double>({1}, {0.5})}}),
                 FeedError);
}

// ---- sources, feeds, parameters ----

TEST(Forward, EvaluatesEveryNodeIncludingSources) {
    auto [network, w, x, c, y] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(3.0);
        const auto x = tape.input(2.0);
        const auto c = tape.leaf(10.0);
        return detach(w, x, c, w * x + c);
    });
    const topos::Run<double> run = network.forward(network.parameters());
    EXPECT_EQ(run.of(w).scalar(), 3.0);
    EXPECT_EQ(run.of(x).scalar(), 2.0);
    EXPECT_EQ(run.of(c).scalar(), 10.0);
    EXPECT_EQ(run.of(y).scalar(), 16.0);
    for (const Node& node : network.nodes()) {
        EXPECT_NO_THROW(run.of(node.symbol())) << node;
    }
}

TEST(Forward, FeedsOverlayTheInputDefaults) {
    auto [network, w, x, y, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(0.5);
        const auto x = tape.input(2.0);
        const auto y = tape.input(4.0);
        const auto error = w * x - y;
        return detach(w, x, y, error * error);
    });
    const Parameters<double> parameters = network.parameters();
    EXPECT_EQ(network.forward(parameters).of(loss).scalar(), 9.0);              // (1 - 4)^2
    EXPECT_EQ(network.forward(parameters, {{x, 6.0}}).of(loss).scalar(), 1.0);  // (3 - 4)^2
    EXPECT_EQ(network.forward(parameters, {{y, 0.0}}).of(loss).scalar(), 1.0);  // (1 - 0)^2
    EXPECT_EQ(network.forward(parameters, {{y, 1.0}, {x, 4.0}}).of(loss).scalar(), 1.0);
    // The defaults are untouched by earlier feeds.
    EXPECT_EQ(network.forward(parameters).of(loss).scalar(), 9.0);
    // Parameters replace the recorded initial payloads.
    EXPECT_EQ(network.forward(parameters.with(w, 2.0)).of(loss).scalar(), 0.0);
    EXPECT_EQ(parameters.of(w).scalar(), 0.5);
    // A span of feeds works like the braced list.
    const std::vector<Feed<double>> feeds{{x, 6.0}};
    EXPECT_EQ(network.forward(parameters, std::span<const Feed<double>>(feeds)).of(loss).scalar(),
              1.0);
}

struct TwoInputs {
    Network<double> network;
    Symbol w;
    Symbol x;
    Symbol y;
};

TwoInputs two_inputs() {
    auto [network, w, x, y] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(Tensor<double>::filled({2}, 1.0));
        const auto x = tape.input(Tensor<double>::filled({2}, 2.0));
        return detach(w, x, (w * x).sum());
    });
    return {network, w, x, y};
}

TEST(Forward, RejectsAFeedOfTheWrongShapeNamingTheSymbolAndBothShapes) {
    const TwoInputs net = two_inputs();
    try {
        (void)net.network.forward(net.network.parameters(),
                                  {{net.x, Tensor<double>::filled({3}, 1.0)}});
        FAIL() << "a [3] feed was accepted for a [2] input";
    } catch (const FeedError& error) {
        EXPECT_THAT(
            error.what(),
            AllOf(AnyOf(HasSubstr("%1"), HasSubstr("node 1")), HasSubstr("[3]"), HasSubstr("[2]")));
    }
    EXPECT_THROW((void)net.network.forward(net.network.parameters(), {{net.x, 1.0}}), FeedError);
}

TEST(Forward, RejectsAFeedForASymbolThatIsNotAnInput) {
    const TwoInputs net = two_inputs();
    const Parameters<double> parameters = net.network.parameters();
    try {
        (void)net.network.forward(parameters, {{net.w, Tensor<double>::filled({2}, 1.0)}});
        FAIL() << "a parameter was fed";
    } catch (const FeedError& error) {
        EXPECT_THAT(error.what(),
                    AllOf(AnyOf(HasSubstr("%0"), HasSubstr("node 0")), HasSubstr("input")));
    }
    EXPECT_THROW((void)net.network.forward(parameters, {{net.y, 1.0}}), FeedError);  // computed
}

TEST(Forward, RejectsAFeedForASymbolOfAnotherNetwork) {
    const TwoInputs net = two_inputs();
    const TwoInputs other = two_inputs();
    try {
        (void)net.network.forward(net.network.parameters(),
                                  {{other.x, Tensor<double>::filled({2}, 1.0)}});
        FAIL() << "another network's input was fed";
    } catch (const FeedError& error) {
        EXPECT_THAT(error.what(), HasSubstr("%1"));
    }
}

TEST(Forward, RejectsFeedingOneInputTwice) {
    const TwoInputs net = two_inputs();
    const Tensor<double> v = Tensor<double>::filled({2}, 1.0);
    EXPECT_THROW((void)net.network.forward(net.network.parameters(), {{net.x, v}, {net.x, v}}),
                 FeedError);
}

TEST(Forward, RejectsReadingASymbolOfAnotherNetwork) {
    const TwoInputs net = two_inputs();
    const TwoInputs other = two_inputs();
    const topos::Run<double> run = net.network.forward(net.network.parameters());
    EXPECT_THROW((void)run.of(other.y), SymbolError);
    EXPECT_THROW((void)net.network.node(other.x), SymbolError);
    EXPECT_THROW((void)run.backward(other.y), SymbolError);
    EXPECT_THROW((void)run.backward(net.y).of(other.w), SymbolError);
}

TEST(Forward, RejectsParametersOfAnotherNetwork) {
    const TwoInputs net = two_inputs();
    const TwoInputs other = two_inputs();
    EXPECT_THROW((void)net.network.forward(other.network.parameters()), SymbolError);
    EXPECT_THROW((void)net.network.parameters().of(other.w), SymbolError);
    EXPECT_THROW((void)net.network.parameters().with(other.w, Tensor<double>::filled({2}, 1.0)),
                 SymbolError);
    const Field<double> field = net.network.forward(net.network.parameters()).backward(net.y);
    EXPECT_THROW((void)field.parameters(other.network.parameters()), SymbolError);
}

TEST(Forward, RejectsAParameterReplacementOfAnotherShape) {
    const TwoInputs net = two_inputs();
    EXPECT_THROW((void)net.network.parameters().with(net.w, Tensor<double>::filled({3}, 1.0)),
                 ShapeError);
    EXPECT_THROW((void)net.network.parameters().with(net.x, Tensor<double>::filled({2}, 1.0)),
                 SymbolError);
}

}  // namespace
}  // namespace topos
