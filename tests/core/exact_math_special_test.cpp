// Tests for topos::exact: special values (NaNs, infinities, zeros, overflow,
// underflow, subnormals, IEEE's pow cases) and a record of the exact output
// bits, which must be the same in every build and on every platform.
#include "core/exact_math.hpp"
#include "support/exact_values.hpp"

#include <gtest/gtest.h>

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

// ---- Special values.

bool same_bits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool same_bits(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

TEST(ExactMath, NanInputsGiveTheCanonicalQuietNan) {
    const double canonical = std::numeric_limits<double>::quiet_NaN();
    const double odd_nan = std::bit_cast<double>(std::uint64_t{0xfff8'0000'dead'beef});
    for (const double x : {canonical, odd_nan}) {
        for (const double r : {ex::exp(x),
                               ex::expm1(x),
                               ex::log(x),
                               ex::log1p(x),
                               ex::tanh(x),
                               ex::sigmoid(x),
                               ex::softplus(x),
                               ex::sin(x),
                               ex::cos(x),
                               ex::erf(x),
                               ex::gelu(x),
                               ex::silu(x),
                               ex::pow(x, 2.0),
                               ex::pow(2.0, x)}) {
            EXPECT_TRUE(same_bits(r, canonical)) << hex(r);
        }
    }
    for (const double r : {ex::log(-1.0),
                           ex::log1p(-2.0),
                           ex::sin(inf),
                           ex::cos(-inf),
                           ex::pow(-2.0, 0.5),
                           ex::log(-0x1p-1074)}) {
        EXPECT_TRUE(same_bits(r, canonical)) << hex(r);
    }
    EXPECT_TRUE(same_bits(ex::exp(nan_f), std::numeric_limits<float>::quiet_NaN()));
}

TEST(ExactMath, ExpAndExpm1HandleInfinitiesOverflowAndUnderflow) {
    EXPECT_EQ(ex::exp(inf), inf);
    EXPECT_TRUE(same_bits(ex::exp(-inf), 0.0));
    EXPECT_EQ(ex::exp(709.79), inf);
    EXPECT_EQ(ex::exp(710.0), inf);
    EXPECT_EQ(ex::exp(709.78), 1.7928227943945155e308);
    EXPECT_EQ(ex::exp(-745.0), 0x1p-1074 * 1.0);  // the smallest subnormal
    EXPECT_TRUE(same_bits(ex::exp(-746.0), 0.0));
    EXPECT_TRUE(same_bits(ex::exp(0.0), 1.0));
    EXPECT_TRUE(same_bits(ex::exp(-0.0), 1.0));
    EXPECT_EQ(ex::exp(1.0), 2.718281828459045);
    EXPECT_EQ(ex::expm1(inf), inf);
    EXPECT_TRUE(same_bits(ex::expm1(-inf), -1.0));
    EXPECT_TRUE(same_bits(ex::expm1(-0.0), -0.0));
    EXPECT_TRUE(same_bits(ex::expm1(0x1p-1074), 0x1p-1074));
    EXPECT_EQ(ex::expm1(710.0), inf);
    EXPECT_EQ(ex::exp(89.0f), inf_f);
    EXPECT_TRUE(same_bits(ex::exp(-104.0f), 0.0f));
    EXPECT_EQ(ex::exp(-100.0f), 0x1p-149f * 27.0f);
    EXPECT_TRUE(same_bits(ex::expm1(-0.0f), -0.0f));
}

TEST(ExactMath, LogAndLog1pHandleZeroNegativesInfinityAndSubnormals) {
    EXPECT_EQ(ex::log(0.0), -inf);
    EXPECT_EQ(ex::log(-0.0), -inf);
    EXPECT_EQ(ex::log(inf), inf);
    EXPECT_TRUE(same_bits(ex::log(1.0), 0.0));
    EXPECT_EQ(ex::log(0x1p-1074), -744.4400719213812);
    EXPECT_EQ(ex::log(0x1p-1022), -708.3964185322641);
    EXPECT_EQ(ex::log(1.7976931348623157e308), 709.782712893384);
    EXPECT_EQ(ex::log(2.0), 0.6931471805599453);
    EXPECT_EQ(ex::log1p(-1.0), -inf);
    EXPECT_EQ(ex::log1p(inf), inf);
    EXPECT_TRUE(same_bits(ex::log1p(-0.0), -0.0));
    EXPECT_TRUE(same_bits(ex::log1p(0x1p-1074), 0x1p-1074));
    EXPECT_EQ(ex::log(0.0f), -inf_f);
    EXPECT_EQ(ex::log(0x1p-149f), -103.27892990343185f);
    EXPECT_TRUE(std::isnan(ex::log(-1.0f)));
}

TEST(ExactMath, TanhSigmoidSoftplusAndGeluSaturateWithoutNan) {
    EXPECT_TRUE(same_bits(ex::tanh(inf), 1.0));
    EXPECT_TRUE(same_bits(ex::tanh(-inf), -1.0));
    EXPECT_TRUE(same_bits(ex::tanh(-0.0), -0.0));
    EXPECT_TRUE(same_bits(ex::tanh(1e300), 1.0));
    EXPECT_TRUE(same_bits(ex::tanh(-0x1p-1074), -0x1p-1074));
    EXPECT_TRUE(same_bits(ex::sigmoid(inf), 1.0));
    EXPECT_TRUE(same_bits(ex::sigmoid(-inf), 0.0));
    EXPECT_TRUE(same_bits(ex::sigmoid(1e308), 1.0));
    EXPECT_TRUE(same_bits(ex::sigmoid(-1e308), 0.0));
    EXPECT_TRUE(same_bits(ex::sigmoid(0.0), 0.5));
    EXPECT_TRUE(same_bits(ex::sigmoid(-0.0), 0.5));
    EXPECT_EQ(ex::sigmoid(-740.0), 4.2e-322);  // subnormal, exp(-740)
    EXPECT_EQ(ex::softplus(inf), inf);
    EXPECT_TRUE(same_bits(ex::softplus(-inf), 0.0));
    EXPECT_EQ(ex::softplus(1e300), 1e300);
    EXPECT_EQ(ex::softplus(0.0), 0.6931471805599453);
    EXPECT_EQ(ex::gelu(inf), inf);
    EXPECT_TRUE(same_bits(ex::gelu(-inf), -0.0));
    EXPECT_TRUE(same_bits(ex::gelu(0.0), 0.0));
    EXPECT_TRUE(same_bits(ex::gelu(-0.0), -0.0));
    EXPECT_EQ(ex::gelu(1e300), 1e300);
    EXPECT_LT(ex::gelu(-10.0), 0.0);  // the tail keeps its tiny value, about -7.6e-23
    EXPECT_GT(ex::gelu(-10.0), -1e-22);
    EXPECT_TRUE(same_bits(ex::tanh(-inf_f), -1.0f));
    EXPECT_TRUE(same_bits(ex::sigmoid(-inf_f), 0.0f));
    EXPECT_TRUE(same_bits(ex::sigmoid(inf_f), 1.0f));
}

TEST(ExactMath, SiluSaturatesUnderflowsGraduallyAndKeepsTheSignOfZero) {
    EXPECT_EQ(ex::silu(inf), inf);
    EXPECT_TRUE(same_bits(ex::silu(-inf), -0.0));  // the limit
    EXPECT_TRUE(same_bits(ex::silu(0.0), 0.0));
    EXPECT_TRUE(same_bits(ex::silu(-0.0), -0.0));
    EXPECT_EQ(ex::silu(1e308), 1e308);  // no spurious overflow
    EXPECT_EQ(ex::silu(41.0), 41.0);
    EXPECT_TRUE(same_bits(ex::silu(-1e308), -0.0));
    EXPECT_TRUE(same_bits(ex::silu(-800.0), -0.0));
    EXPECT_TRUE(same_bits(ex::silu(-752.0), -0.0));
    EXPECT_TRUE(same_bits(ex::silu(1.0), 0.7310585786300049));
    EXPECT_TRUE(same_bits(ex::silu(-1.0), -0.2689414213699951));
    // x exp(x) underflows later than exp(x): still a negative subnormal where exp(x) is 0.
    EXPECT_TRUE(same_bits(ex::exp(-750.0), 0.0));
    EXPECT_TRUE(same_bits(ex::silu(-750.0), -3 * 0x1p-1074));
    EXPECT_LT(ex::silu(-740.0), -1e-319);
    EXPECT_GT(ex::silu(-740.0), -1e-318);
    EXPECT_LT(ex::silu(-40.0), 0.0);  // about -1.7e-16
    EXPECT_GT(ex::silu(-40.0), -2e-16);
    // Subnormal inputs: x/2 + x^2/4 rounded correctly, the ties of x/2 broken towards +inf.
    EXPECT_TRUE(same_bits(ex::silu(0x1p-1074), 0x1p-1074));
    EXPECT_TRUE(same_bits(ex::silu(-0x1p-1074), -0.0));
    EXPECT_TRUE(same_bits(ex::silu(3 * 0x1p-1074), 2 * 0x1p-1074));
    EXPECT_TRUE(same_bits(ex::silu(-3 * 0x1p-1074), -0x1p-1074));
    EXPECT_TRUE(same_bits(ex::silu(0x1p-1000), 0x1p-1001));
    EXPECT_EQ(ex::silu(inf_f), inf_f);
    EXPECT_TRUE(same_bits(ex::silu(-inf_f), -0.0f));
    EXPECT_TRUE(same_bits(ex::silu(-0.0f), -0.0f));
    EXPECT_TRUE(same_bits(ex::silu(-200.0f), -0.0f));
    EXPECT_EQ(ex::silu(3e38f), 3e38f);
    EXPECT_TRUE(same_bits(ex::silu(nan_f), std::numeric_limits<float>::quiet_NaN()));
}

TEST(ExactMath, SinAndCosHandleZerosInfinitiesAndHugeArguments) {
    EXPECT_TRUE(same_bits(ex::sin(0.0), 0.0));
    EXPECT_TRUE(same_bits(ex::sin(-0.0), -0.0));
    EXPECT_TRUE(same_bits(ex::cos(-0.0), 1.0));
    EXPECT_TRUE(same_bits(ex::sin(-0x1p-1074), -0x1p-1074));
    EXPECT_TRUE(std::isnan(ex::sin(inf)));
    EXPECT_TRUE(std::isnan(ex::cos(-inf_f)));
    for (const double x : {1e22, 1.7976931348623157e308, -1e300, 0x1p1023, 123456789.0}) {
        EXPECT_FALSE(std::isnan(ex::sin(x))) << x;
        EXPECT_LE(std::fabs(ex::sin(x)), 1.0);
        EXPECT_LE(std::fabs(ex::cos(x)), 1.0);
    }
    EXPECT_EQ(ex::sin(1e22), -0.8522008497671888);  // a classic hard case of argument reduction
}

TEST(ExactMath, ErfIsOddAndSaturates) {
    EXPECT_TRUE(same_bits(ex::erf(inf), 1.0));
    EXPECT_TRUE(same_bits(ex::erf(-inf), -1.0));
    EXPECT_TRUE(same_bits(ex::erf(-0.0), -0.0));
    EXPECT_TRUE(same_bits(ex::erf(6.0), 1.0));
    for (const double x : Inputs<double>(24).uniform(500, -7, 7).values()) {
        EXPECT_TRUE(same_bits(ex::erf(-x), -ex::erf(x))) << x;
    }
}

TEST(ExactMath, PowFollowsIeeeSpecialCases) {
    EXPECT_EQ(ex::pow(nan, 0.0), 1.0);
    EXPECT_EQ(ex::pow(1.0, nan), 1.0);
    EXPECT_EQ(ex::pow(-1.0, inf), 1.0);
    EXPECT_EQ(ex::pow(-1.0, -inf), 1.0);
    EXPECT_EQ(ex::pow(0.5, inf), 0.0);
    EXPECT_EQ(ex::pow(0.5, -inf), inf);
    EXPECT_EQ(ex::pow(2.0, inf), inf);
    EXPECT_EQ(ex::pow(2.0, -inf), 0.0);
    EXPECT_TRUE(same_bits(ex::pow(-0.0, 3.0), -0.0));
    EXPECT_TRUE(same_bits(ex::pow(-0.0, 2.0), 0.0));
    EXPECT_TRUE(same_bits(ex::pow(-0.0, 0.5), 0.0));
    EXPECT_EQ(ex::pow(-0.0, -3.0), -inf);
    EXPECT_EQ(ex::pow(-0.0, -2.0), inf);
    EXPECT_EQ(ex::pow(0.0, -0.5), inf);
    EXPECT_EQ(ex::pow(-inf, 3.0), -inf);
    EXPECT_EQ(ex::pow(-inf, 2.5), inf);
    EXPECT_TRUE(same_bits(ex::pow(-inf, -3.0), -0.0));
    EXPECT_TRUE(same_bits(ex::pow(-inf, -2.0), 0.0));
    EXPECT_EQ(ex::pow(inf, 0.5), inf);
    EXPECT_TRUE(same_bits(ex::pow(inf, -0.5), 0.0));
    EXPECT_EQ(ex::pow(-2.0, 3.0), -8.0);
    EXPECT_EQ(ex::pow(-2.0, 0x1p60), inf);  // huge even integer
    EXPECT_EQ(ex::pow(2.0, 0.5), 1.4142135623730951);
    EXPECT_EQ(ex::pow(2.0, 1024.0), inf);
    EXPECT_EQ(ex::pow(2.0, -1074.0), 0x1p-1074);
    EXPECT_TRUE(same_bits(ex::pow(2.0, -1076.0), 0.0));
    EXPECT_EQ(ex::pow(10.0, 308.0), 1e308);
    EXPECT_EQ(ex::pow(3.0f, 2.0f), 9.0f);
    EXPECT_EQ(ex::pow(2.0f, 128.0f), inf_f);
}

TEST(ExactMath, PowIsExactWhenTheResultIsRepresentable) {
    std::mt19937_64 rng(26);
    for (int i = 0; i < 2000; ++i) {
        const double x =
            std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 1000) - 520);
        EXPECT_EQ(ex::pow(x, 1.0), x) << hex(x);
        const double root =
            std::ldexp(static_cast<double>(rng() >> 38), static_cast<int>(rng() % 800) - 400);
        EXPECT_EQ(ex::pow(root * root, 0.5), root)
            << hex(root);  // 26-bit root: the square is exact
        EXPECT_EQ(ex::pow(root, 2.0), root * root) << hex(root);
    }
    for (int k = -1074; k <= 1023; ++k) {
        EXPECT_EQ(ex::pow(2.0, static_cast<double>(k)), std::ldexp(1.0, k)) << k;
    }
    for (int base = -20; base <= 20; ++base) {
        for (int k = 0; k <= 10; ++k) {
            EXPECT_EQ(ex::pow(static_cast<double>(base), static_cast<double>(k)),
                      std::pow(static_cast<double>(base), k))
                << base << "^" << k;
        }
    }
}

// ---- Bit-exactness: a hash of the output bits over fixed inputs, recorded from the reference
// build. Any build or platform that differs breaks the project's central promise; if the
// functions are deliberately changed, update the recorded values (the failure prints them).

std::uint64_t fnv1a(std::uint64_t h, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3;
    }
    return h;
}

template <typename T, typename F>
std::uint64_t output_hash(const std::vector<T>& xs, F f) {
    std::uint64_t h = 0xcbf29ce484222325;
    for (const T x : xs) {
        const T y = f(x);
        if constexpr (sizeof(T) == 8) {
            h = fnv1a(h, std::bit_cast<std::uint64_t>(y));
        } else {
            h = fnv1a(h, std::bit_cast<std::uint32_t>(y));
        }
    }
    return h;
}

TEST(ExactMath, OutputBitsMatchTheRecordedHashesInEveryBuild) {
    // Bit patterns only: these inputs do not depend on any library.
    std::vector<double> xd;
    std::vector<float> xf;
    std::mt19937_64 rng(25);
    for (int i = 0; i < 2000; ++i) {
        const std::uint64_t r = rng();
        const auto exponent = static_cast<std::uint64_t>(1023 - 40 + static_cast<int>(r % 50));
        xd.push_back(std::bit_cast<double>(((r >> 63) << 63) | (exponent << 52) | (rng() >> 12)));
        const auto exponent_f = static_cast<std::uint32_t>(127 - 20 + static_cast<int>(r % 28));
        xf.push_back(std::bit_cast<float>(static_cast<std::uint32_t>((r >> 63) << 31) |
                                          (exponent_f << 23) |
                                          static_cast<std::uint32_t>(rng() >> 41)));
    }
    for (int i = 0; i < 100; ++i) {
        xd.push_back(std::bit_cast<double>(rng() >> 1));  // any finite or special value
    }
    const auto hd = [&](auto f) { return output_hash(xd, f); };
    const auto hf = [&](auto f) { return output_hash(xf, f); };
    const std::vector<std::uint64_t> got{
        hd([](double x) { return ex::exp(x); }),
        hd([](double x) { return ex::expm1(x); }),
        hd([](double x) { return ex::log(std::fabs(x)); }),
        hd([](double x) { return ex::log1p(std::fabs(x)); }),
        hd([](double x) { return ex::tanh(x); }),
        hd([](double x) { return ex::sigmoid(x); }),
        hd([](double x) { return ex::softplus(x); }),
        hd([](double x) { return ex::sin(x); }),
        hd([](double x) { return ex::cos(x); }),
        hd([](double x) { return ex::erf(x); }),
        hd([](double x) { return ex::gelu(x); }),
        hd([](double x) { return ex::pow(std::fabs(x), x); }),
        hf([](float x) { return ex::exp(x); }),
        hf([](float x) { return ex::log(std::fabs(x)); }),
        hf([](float x) { return ex::sin(x); }),
        hf([](float x) { return ex::erf(x); }),
        hf([](float x) { return ex::gelu(x); }),
        hd([](double x) { return ex::silu(x); }),
        hf([](float x) { return ex::silu(x); }),
    };
    const std::vector<std::uint64_t> recorded{
        0x4112f631e92fe4ac,  // exp
        0x8703099a32363e7,   // expm1
        0x72e2e9330ba8e580,  // log
        0x71c83d5eed03dba8,  // log1p
        0x6c58a2594d68dbe8,  // tanh
        0x59b8069308178589,  // sigmoid
        0x3b11557605c43bd0,  // softplus
        0x109844c11a4122a9,  // sin
        0x4fcf584c12c77b4f,  // cos
        0x39712b51b8fa50d5,  // erf
        0x6d085d34d31160ba,  // gelu
        0xfa4ab5142d0129f8,  // pow
        0x2d9931f4e417cc6d,  // exp (float)
        0x3c09c1f391abf3b0,  // log (float)
        0x4c4459c08923c86,   // sin (float)
        0xb9ad4040337e0833,  // erf (float)
        0x5d59fa8c673b76bc,  // gelu (float)
        0x9c5f8521f4c0698,   // silu
        0x1b064a684e222749,  // silu (float)
    };
    std::ostringstream printed;
    for (const std::uint64_t h : got) {
        printed << "0x" << std::hex << h << ", ";
    }
    EXPECT_EQ(got, recorded) << "hashes of this build: " << printed.str();
}

}  // namespace
