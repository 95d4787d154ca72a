// Network::forward on the elementwise opcodes: each on tiny hand-checked inputs
// with exact expected values (IEEE infinities, NaNs and signed zeros included),
// and the transcendental and catalog functions exact where their result is exact
// and within one ulp elsewhere.
#include "support/bit_equal.hpp"
#include "support/forward_oracle.hpp"
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace topos {
namespace {

using test::apply;
using test::bit_equal;
using test::expect_within_one_ulp;
using test::inf;

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

}  // namespace
}  // namespace topos
