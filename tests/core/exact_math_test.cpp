// Tests for topos::exact: accuracy sweeps against the platform's long double libm (used only as a
// measuring stick). Special values and the record of the output bits are in
// exact_math_special_test.cpp.
#include "core/exact_math.hpp"

#include "support/exact_values.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace ex = topos::exact;
using topos::test::exact_values::hex;
using topos::test::exact_values::inf;
using topos::test::exact_values::inf_f;
using topos::test::exact_values::Inputs;
using topos::test::exact_values::nan;
using topos::test::exact_values::nan_f;

// The documented bound (docs/exact-math.md): every function, double and float, is within 1 ulp.
constexpr long double max_ulp = 1.0L;

bool long_double_is_wider() {
    return std::numeric_limits<long double>::digits >= 64;
}

// |got - want| in units of the last place of T at want (subnormal spacing below the normal range).
template <typename T>
long double ulp_error(T got, long double want) {
    if (std::isnan(want) || std::isnan(got)) {
        return std::isnan(want) && std::isnan(got) ? 0.0L : inf;
    }
    const T rounded = static_cast<T>(want);
    if (std::isinf(rounded) || std::isinf(got)) {
        return got == rounded ? 0.0L : inf;
    }
    int exponent = std::numeric_limits<T>::min_exponent;
    if (want != 0.0L) {
        std::frexp(want, &exponent);
        exponent = std::max(exponent, std::numeric_limits<T>::min_exponent);
    }
    const long double ulp = std::ldexp(1.0L, exponent - std::numeric_limits<T>::digits);
    return std::fabs(static_cast<long double>(got) - want) / ulp;
}

template <typename T, typename F, typename R>
void expect_within_bound(const char* name, const std::vector<T>& xs, F f, R reference) {
    long double worst = 0.0L;
    T worst_x = 0;
    for (const T x : xs) {
        const long double e = ulp_error<T>(f(x), reference(static_cast<long double>(x)));
        if (!(e <= worst)) {
            worst = e;
            worst_x = x;
        }
    }
    EXPECT_LE(worst, max_ulp) << name << (sizeof(T) == 8 ? " (double)" : " (float)") << ": "
                              << static_cast<double>(worst) << " ulp at x = " << hex(worst_x)
                              << " over " << xs.size() << " inputs";
}

// Multiples k pi/2 rounded to double, for k = first, first + step, ...
std::vector<double> multiples_of_half_pi(long long first, long long step, int count) {
    const long double half_pi = 1.5707963267948966192313216916397514L;
    std::vector<double> out;
    for (int i = 0; i < count; ++i) {
        out.push_back(static_cast<double>(static_cast<long double>(first + step * i) * half_pi));
    }
    return out;
}

// (k + 1/2) ln2: the points where the reduction of exp switches from k to k + 1.
std::vector<double> exp_reduction_boundaries(int first, int last, int step) {
    const long double ln2 = 0.6931471805599453094172321214581765681L;
    std::vector<double> out;
    for (int k = first; k <= last; k += step) {
        out.push_back(static_cast<double>((k + 0.5L) * ln2));
    }
    return out;
}

// References in long double.
long double ref_sigmoid(long double x) {
    if (x >= 0) {
        return 1.0L / (1.0L + std::exp(-x));
    }
    const long double e = std::exp(x);
    return e / (1.0L + e);
}

long double ref_softplus(long double x) {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

// x sigmoid(x); its relative error stays about 2^-63 for every x the sweeps draw.
long double ref_silu(long double x) {
    return x / (1.0L + std::exp(-x));
}

// x Phi(x) with erfc; u = |x| / sqrt(2) is rounded, so erfc is corrected to first order.
long double ref_gelu(long double x) {
    constexpr long double inv_sqrt2_hi = 0xb.504f333f9de6484p-4L;
    constexpr long double inv_sqrt2_lo = 0x1.65f626cdd52b0p-66L;
    constexpr long double two_over_sqrt_pi = 1.1283791670955125738961589031215452L;
    const long double ax = std::fabs(x);
    const long double u = ax * inv_sqrt2_hi;
    const long double u_lo = std::fma(ax, inv_sqrt2_hi, -u) + ax * inv_sqrt2_lo;
    const long double c = std::erfc(u) - u_lo * two_over_sqrt_pi * std::exp(-u * u);
    return x < 0 ? 0.5L * x * c : x * (1.0L - 0.5L * c);
}

// ---- Accuracy sweeps.

TEST(ExactMath, ExpIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto ref = [](long double x) { return std::exp(x); };
    const auto xs = Inputs<double>(1)
                        .uniform(18000, -745.2, 709.8)
                        .uniform(9000, -2, 2)
                        .log_uniform(6000, -60, 3)
                        .around(exp_reduction_boundaries(-1076, 1024, 37), 2)
                        .around({709.782712893384,
                                 -708.3964185322641,
                                 -745.1332191019411,
                                 -745.1332191019412,
                                 -744.4400719213812},
                                20)
                        .values();
    expect_within_bound(
        "exp", xs, [](double x) { return ex::exp(x); }, ref);
    const auto xf = Inputs<float>(2)
                        .uniform(18000, -104.0, 88.8)
                        .log_uniform(9000, -30, 3)
                        .around({88.72283935546875, -87.33654022216797, -103.97208404541016}, 20)
                        .values();
    expect_within_bound(
        "exp", xf, [](float x) { return ex::exp(x); }, ref);
}

TEST(ExactMath, Expm1IsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto ref = [](long double x) { return std::expm1(x); };
    const auto xs = Inputs<double>(3)
                        .log_uniform(18000, -60, 3)
                        .uniform(12000, -50, 50)
                        .uniform(3000, 40, 709.8)
                        .around({0.34657359027997264,
                                 -0.34657359027997264,
                                 37.5,
                                 -37.5,
                                 45,
                                 -45,
                                 0x1p-54,
                                 -0x1p-54},
                                20)
                        .values();
    expect_within_bound(
        "expm1", xs, [](double x) { return ex::expm1(x); }, ref);
    const auto xf = Inputs<float>(4).log_uniform(18000, -30, 3).uniform(12000, -20, 89).values();
    expect_within_bound(
        "expm1", xf, [](float x) { return ex::expm1(x); }, ref);
}

TEST(ExactMath, LogIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto ref = [](long double x) { return std::log(x); };
    const auto xs = Inputs<double>(5)
                        .positive_bit_patterns(5000)
                        .uniform(9000, 0.5, 2)
                        .around({1.0,
                                 1.4142135623730951,
                                 0.7071067811865476,
                                 2.0,
                                 0.5,
                                 0x1p-1022,
                                 0x1p-1074,
                                 1.7976931348623157e308},
                                50)
                        .values();
    std::vector<double> near_one;
    for (const double d : Inputs<double>(6).log_uniform(6000, -60, -1).values()) {
        near_one.push_back(1.0 + d);
    }
    expect_within_bound(
        "log", xs, [](double x) { return ex::log(x); }, ref);
    expect_within_bound(
        "log", near_one, [](double x) { return ex::log(x); }, ref);
    const auto xf = Inputs<float>(7)
                        .positive_bit_patterns(6000)
                        .uniform(9000, 0.5, 2)
                        .around({1.0, 0x1p-126, 0x1p-149}, 50)
                        .values();
    expect_within_bound(
        "log", xf, [](float x) { return ex::log(x); }, ref);
}

TEST(ExactMath, Log1pIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto ref = [](long double x) { return std::log1p(x); };
    std::vector<double> near_minus_one;
    for (const double d : Inputs<double>(8).log_uniform(3000, -53, -1, true).values()) {
        near_minus_one.push_back(-1.0 + d);
    }
    const auto xs = Inputs<double>(9)
                        .log_uniform(15000, -60, 1)
                        .uniform(9000, -1, 10)
                        .log_uniform(6000, 0, 1023, true)
                        .around({-0.2928, 0.4142, 0x1p-54, -0x1p-54, 0x1p-53, -0x1p-53}, 20)
                        .values();
    expect_within_bound(
        "log1p", xs, [](double x) { return ex::log1p(x); }, ref);
    expect_within_bound(
        "log1p", near_minus_one, [](double x) { return ex::log1p(x); }, ref);
    const auto xf = Inputs<float>(10)
                        .log_uniform(15000, -30, 0)
                        .uniform(9000, -1, 10)
                        .log_uniform(6000, 0, 127, true)
                        .values();
    expect_within_bound(
        "log1p", xf, [](float x) { return ex::log1p(x); }, ref);
}

TEST(ExactMath, TanhIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto ref = [](long double x) { return std::tanh(x); };
    const auto xs = Inputs<double>(11)
                        .log_uniform(18000, -40, 5)
                        .uniform(9000, -25, 25)
                        .around({0x1p-27, 0.17328679513998632, 19.06, 22.0, -22.0}, 20)
                        .values();
    expect_within_bound(
        "tanh", xs, [](double x) { return ex::tanh(x); }, ref);
    const auto xf = Inputs<float>(12).log_uniform(18000, -20, 4).uniform(9000, -12, 12).values();
    expect_within_bound(
        "tanh", xf, [](float x) { return ex::tanh(x); }, ref);
}

TEST(ExactMath, SigmoidIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto xs = Inputs<double>(13)
                        .uniform(18000, -50, 50)
                        .uniform(6000, -750, -40)
                        .log_uniform(6000, -40, 5)
                        .around({40.0, -40.0, 0.0, -745.1332191019411}, 20)
                        .values();
    expect_within_bound(
        "sigmoid", xs, [](double x) { return ex::sigmoid(x); }, ref_sigmoid);
    const auto xf = Inputs<float>(14).uniform(18000, -110, 30).log_uniform(9000, -20, 5).values();
    expect_within_bound(
        "sigmoid", xf, [](float x) { return ex::sigmoid(x); }, ref_sigmoid);
}

TEST(ExactMath, SoftplusIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto xs = Inputs<double>(15)
                        .uniform(18000, -50, 50)
                        .uniform(3000, -750, -40)
                        .log_uniform(6000, -40, 6)
                        .around({40.0, -40.0, 0.0, 0.8813735870195429, -0.8813735870195429}, 20)
                        .values();
    expect_within_bound(
        "softplus", xs, [](double x) { return ex::softplus(x); }, ref_softplus);
    const auto xf = Inputs<float>(16).uniform(18000, -110, 30).log_uniform(9000, -20, 5).values();
    expect_within_bound(
        "softplus", xf, [](float x) { return ex::softplus(x); }, ref_softplus);
}

TEST(ExactMath, SinAndCosAreWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto sin_ref = [](long double x) { return std::sin(x); };
    const auto cos_ref = [](long double x) { return std::cos(x); };
    auto near_multiples = multiples_of_half_pi(1, 1, 200);
    for (const double m : multiples_of_half_pi(201, 4999, 200)) {  // up to about 1.6e6
        near_multiples.push_back(m);
    }
    for (const double m : multiples_of_half_pi(1LL << 40, 123456789012LL, 50)) {
        near_multiples.push_back(m);
    }
    near_multiples.push_back(0x1p20);
    near_multiples.push_back(0x1.6ac5b262ca1ffp+849);  // 6381956970095103 * 2^797: close to k pi/2
    const auto xs = Inputs<double>(17)
                        .uniform(12000, -10, 10)
                        .log_uniform(9000, -30, 17)  // up to 1.3e5
                        .log_uniform(3000, 17, 1024)
                        .around(near_multiples, 2)
                        .values();
    expect_within_bound(
        "sin", xs, [](double x) { return ex::sin(x); }, sin_ref);
    expect_within_bound(
        "cos", xs, [](double x) { return ex::cos(x); }, cos_ref);
    const auto xf = Inputs<float>(18)
                        .uniform(12000, -10, 10)
                        .log_uniform(9000, -20, 17)
                        .log_uniform(3000, 17, 128)
                        .values();
    expect_within_bound(
        "sin", xf, [](float x) { return ex::sin(x); }, sin_ref);
    expect_within_bound(
        "cos", xf, [](float x) { return ex::cos(x); }, cos_ref);
}

TEST(ExactMath, ErfIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto ref = [](long double x) { return std::erf(x); };
    const auto xs = Inputs<double>(19)
                        .uniform(18000, -7, 7)
                        .log_uniform(9000, -40, 3)
                        .around({0x1p-28, 0.75, 2.0, 3.0, 6.0, -0.75, -6.0}, 20)
                        .values();
    expect_within_bound(
        "erf", xs, [](double x) { return ex::erf(x); }, ref);
    const auto xf = Inputs<float>(20).uniform(18000, -5, 5).log_uniform(9000, -30, 2).values();
    expect_within_bound(
        "erf", xf, [](float x) { return ex::erf(x); }, ref);
}

TEST(ExactMath, GeluIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    const auto xs = Inputs<double>(21)
                        .uniform(18000, -41, 41)
                        .uniform(6000, -4, 4)
                        .log_uniform(6000, -40, 5)
                        .around({1.0606601717798212,
                                 -1.0606601717798212,
                                 2.8284271247461903,
                                 -2.8284271247461903,
                                 4.242640687119285,
                                 -4.242640687119285,
                                 40.0,
                                 -40.0},
                                20)
                        .values();
    expect_within_bound(
        "gelu", xs, [](double x) { return ex::gelu(x); }, ref_gelu);
    const auto xf = Inputs<float>(22).uniform(18000, -15, 15).log_uniform(9000, -20, 4).values();
    expect_within_bound(
        "gelu", xf, [](float x) { return ex::gelu(x); }, ref_gelu);
}

TEST(ExactMath, SiluIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    // The branch points (+-2^-54, -45, 40), the start of subnormal results (-714.97) and the
    // underflow to -0 (-751.76), and the subnormal inputs around 0, where x/2 can be a tie.
    const auto xs = Inputs<double>(27)
                        .uniform(18000, -50, 50)
                        .uniform(6000, -760, -40)
                        .log_uniform(6000, -40, 6)
                        .log_uniform(3000, -1074, -40)
                        .around({0.0,
                                 0x1p-54,
                                 -0x1p-54,
                                 0x1p-1022,
                                 -0x1p-1022,
                                 40.0,
                                 -40.0,
                                 45.0,
                                 -45.0,
                                 -714.968657237966,
                                 -751.7556304135238},
                                20)
                        .values();
    expect_within_bound(
        "silu", xs, [](double x) { return ex::silu(x); }, ref_silu);
    const auto xf = Inputs<float>(28)
                        .uniform(18000, -110, 30)
                        .log_uniform(9000, -20, 6)
                        .log_uniform(3000, -149, -20)
                        .around({0.0, -87.0, -98.0}, 20)
                        .values();
    expect_within_bound(
        "silu", xf, [](float x) { return ex::silu(x); }, ref_silu);
}

TEST(ExactMath, PowIsWithinOneUlpOfLongDoubleReference) {
    if (!long_double_is_wider()) {
        GTEST_SKIP() << "needs a long double wider than double as the reference";
    }
    std::mt19937_64 rng(23);
    const auto unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1p-53; };
    long double worst = 0.0L;
    long double worst_f = 0.0L;
    std::string where;
    for (int i = 0; i < 24000; ++i) {
        double x = std::ldexp(1.0 + unit(), static_cast<int>(rng() % 400) - 200);
        double y = -20.0 + 40.0 * unit();
        if (i % 4 == 1) {  // near 1 with large exponents: stresses the precision of log
            x = 1.0 + (unit() - 0.5) * 0x1p-20;
            y = (unit() - 0.5) * 0x1p31;
        } else if (i % 4 == 2) {  // negative bases, integer exponents
            x = -8.0 * unit();
            y = static_cast<double>(static_cast<int>(rng() % 81) - 40);
        } else if (i % 8 == 3) {  // results across the range, subnormals included
            x = std::ldexp(1.0 + unit(), static_cast<int>(rng() % 2000) - 1000);
            y = -1.1 + 2.2 * unit();
        } else if (i % 8 == 7) {  // |y log x| near 700 with |log x| large: the worst case for log
            x = 0.7072 + 0.7070 * unit();
            y = (unit() < 0.5 ? 700.0 : -700.0) / static_cast<double>(std::log(x));
        }
        const long double e = ulp_error<double>(
            ex::pow(x, y), std::pow(static_cast<long double>(x), static_cast<long double>(y)));
        if (e > worst) {
            worst = e;
            where = hex(x) + ", " + hex(y);
        }
        const auto xf = static_cast<float>(x);
        const float yf = static_cast<float>(i % 4 == 1 ? y * 0x1p-12 : y);
        worst_f = std::max(
            worst_f,
            ulp_error<float>(ex::pow(xf, yf),
                             std::pow(static_cast<long double>(xf), static_cast<long double>(yf))));
    }
    EXPECT_LE(worst, max_ulp) << "pow (double) worst at " << where;
    EXPECT_LE(worst_f, max_ulp) << "pow (float)";
}

}  // namespace
