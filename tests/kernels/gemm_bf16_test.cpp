// The bf16 GEMMs. The exact one equals the float reference loop on the widened
// operands, rounded once to bf16, bit for bit: random shapes (edge tiles, m/n/k
// of 1, primes, k across block boundaries), transposed and batch-shared
// operands, every micro-kernel this processor runs and several thread counts;
// infinities and NaNs as the float GEMM makes them. The AVX-512 BF16 dot
// product stays within its documented bound of the exact sum, is exact where
// every partial sum is, and runs the exact product wherever it may not run.
#include "kernels/gemm_bf16.hpp"

#include "kernels/row_sweep.hpp"
#include "support/bit_equal.hpp"
#include "support/gemm_cases.hpp"
#include "support/thread_count_guard.hpp"
#include <topos/core/threads.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topos {
namespace {
namespace bf16_gemm_test {  // apart from the other tests of a unity build

using test::GemmCase;
using test::ThreadCountGuard;

// bf16 operands of a case, and the same values widened to float (same strides).
struct Bf16Operands {
    std::vector<bf16> a;
    std::vector<bf16> b;
    detail::MatrixView<bf16> a_view;
    detail::MatrixView<bf16> b_view;
    test::GemmOperands<float> widened;
};

std::vector<bf16> rounded(std::vector<float>& values) {
    std::vector<bf16> narrow(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        narrow[i] = bf16(values[i]);
        values[i] = static_cast<float>(narrow[i]);
    }
    return narrow;
}

Bf16Operands bf16_operands(test::GemmOperands<float> widened) {
    Bf16Operands o{rounded(widened.a), rounded(widened.b), {}, {}, std::move(widened)};
    const auto& a = o.widened.a_view;
    const auto& b = o.widened.b_view;
    o.widened.a_view.data = o.widened.a.data();
    o.widened.b_view.data = o.widened.b.data();
    o.a_view = {o.a.data(), a.row_stride, a.column_stride, a.batch_stride};
    o.b_view = {o.b.data(), b.row_stride, b.column_stride, b.batch_stride};
    return o;
}

Bf16Operands random_operands(const GemmCase& c, std::mt19937& generator) {
    return bf16_operands(test::gemm_operands<float>(c, generator));
}

Tensor<bf16> rounded_tensor(const Tensor<float>& sums) {
    std::vector<bf16> values;
    for (const float sum : sums.data()) {
        values.push_back(bf16(sum));
    }
    return Tensor<bf16>(sums.shape(), values);
}

using Bf16Gemm = void (*)(detail::Bf16GemmOptions,
                          detail::GemmExtents,
                          detail::MatrixView<bf16>,
                          detail::MatrixView<bf16>,
                          detail::MatrixTarget<bf16>);

// The product as a [batches, rows, columns] tensor, cut into tiles over the
// pool however small. The result starts as NaN, so an output the GEMM fails
// to write cannot pass.
Tensor<bf16> product_of(Bf16Gemm gemm, Isa isa, const GemmCase& c, const Bf16Operands& o) {
    const auto size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    std::vector<bf16> out(c.batches * c.rows * c.columns, std::numeric_limits<bf16>::quiet_NaN());
    gemm({.isa = isa, .parallel_threshold = 0},
         {c.batches, c.rows, c.depth, c.columns},
         o.a_view,
         o.b_view,
         {out.data(), size(c.columns), size(c.rows * c.columns)});
    return Tensor<bf16>({c.batches, c.rows, c.columns}, out);
}

std::string describe(const GemmCase& c, Isa isa, std::size_t threads) {
    return std::string(name_of(isa)) + ", " + std::to_string(threads) + " threads, batches " +
           std::to_string(c.batches) + ", m " + std::to_string(c.rows) + ", k " +
           std::to_string(c.depth) + ", n " + std::to_string(c.columns) +
           (c.transpose_a ? ", A transposed" : "") + (c.transpose_b ? ", B transposed" : "") +
           (c.shared_b ? ", B shared" : "");
}

// Extents that make edge tiles for every tile (4 to 24 rows, 4 to 32 columns),
// primes, and odd depths (a k pair left half empty).
std::size_t random_extent(std::mt19937& generator) {
    static constexpr std::size_t extents[] = {1,  2,  3,  4,  5,  6,  7,  8,  11, 12, 13,
                                              16, 17, 23, 24, 25, 31, 32, 33, 47, 61};
    return extents[generator() % std::size(extents)];
}

GemmCase random_case(std::mt19937& generator) {
    GemmCase c{};
    c.batches = 1 + generator() % 3;
    c.rows = random_extent(generator);
    c.depth = random_extent(generator);
    c.columns = random_extent(generator);
    c.transpose_a = generator() % 2 == 1;
    c.transpose_b = generator() % 2 == 1;
    c.shared_b = generator() % 3 == 0;
    return c;
}

// Cases whose depth spans several k blocks (sums kept in float between
// them) or whose columns span column blocks (the portable tile's 1,024), row
// sweeps (at most four rows over a row-major B) across many column parts, and
// products of few rows and many columns, which threads split by columns, each
// packing its own panels of B (a prompt's rows through a projection).
std::vector<GemmCase> blocked_cases() {
    return {{1, 128, 1030, 700, false, false, false},
            {1, 100, 600, 333, false, true, false},
            {1, 13, 255, 17, false, false, false},
            {2, 7, 257, 33, true, false, false},
            {1, 25, 513, 40, false, true, false},
            {3, 5, 1030, 9, true, true, true},
            {1, 5, 300, 1030, false, false, false},
            {1, 1, 600, 2061, false, false, false},
            {2, 4, 70, 531, true, false, true},
            {1, 3, 33, 300, false, false, false},
            {1, 1, 40, 1000, false, false, false},
            {2, 1, 19, 430, false, false, true}};
}

void expect_widened_reference_bits(const GemmCase& c, std::mt19937& generator) {
    const Bf16Operands operands = random_operands(c, generator);
    const Tensor<bf16> expected = rounded_tensor(test::reference_product(c, operands.widened));
    for (const std::size_t threads : {1, 2, 3}) {
        set_threads(threads);
        for (const Isa isa : supported_isas()) {
            SCOPED_TRACE(describe(c, isa, threads));
            test::expect_bit_equal(product_of(detail::gemm_bf16_with, isa, c, operands), expected);
        }
    }
}

TEST(ExactBf16Gemm, EqualsTheWidenedFloatReferenceRoundedOnceOnRandomShapes) {
    const ThreadCountGuard guard;
    std::mt19937 generator(20240611);
    for (int trial = 0; trial < 40; ++trial) {
        expect_widened_reference_bits(random_case(generator), generator);
    }
}

TEST(ExactBf16Gemm, EqualsTheWidenedFloatReferenceAcrossDepthAndColumnBlocks) {
    const ThreadCountGuard guard;
    std::mt19937 generator(7);
    for (const GemmCase& c : blocked_cases()) {
        expect_widened_reference_bits(c, generator);
    }
}

// A sweep whose C holds the sums of earlier k terms (continues) takes up
// those sums: two sweeps over halves of the depth give one sweep's bits, on
// every instruction set, over column counts that reach every block width.
TEST(ExactBf16Gemm, AWideningSweepContinuesFromThePartialSumsInC) {
    std::mt19937 generator(5);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const std::size_t depth = 37;
    for (const std::size_t columns : {1000, 384, 33}) {
        std::vector<float> a(depth);
        std::vector<bf16> b(depth * columns);
        for (float& x : a) {
            x = normal(generator);
        }
        for (bf16& x : b) {
            x = bf16(normal(generator));
        }
        for (const Isa isa : supported_isas()) {
            SCOPED_TRACE(std::to_string(columns) + " columns");
            const detail::SweepFunction<float, bf16> sweep = detail::widening_row_sweep_for(isa);
            const auto operands =
                [&](std::size_t first_k, std::size_t ks, float* c, bool continues) {
                    return detail::SweepOperands<float, bf16>{a.data() + first_k,
                                                              static_cast<std::ptrdiff_t>(depth),
                                                              1,
                                                              1,
                                                              b.data() + first_k * columns,
                                                              static_cast<std::ptrdiff_t>(columns),
                                                              ks,
                                                              c,
                                                              static_cast<std::ptrdiff_t>(columns),
                                                              continues};
                };
            std::vector<float> whole(columns);
            std::vector<float> halves(columns);
            sweep(operands(0, depth, whole.data(), false), 0, columns);
            sweep(operands(0, 20, halves.data(), false), 0, columns);
            sweep(operands(20, depth - 20, halves.data(), true), 0, columns);
            for (std::size_t j = 0; j < columns; ++j) {
                float expected = 0.0f;
                for (std::size_t p = 0; p < depth; ++p) {
                    expected = std::fma(a[p], static_cast<float>(b[p * columns + j]), expected);
                }
                ASSERT_EQ(test::bits_of(whole[j]), test::bits_of(expected)) << "column " << j;
                ASSERT_EQ(test::bits_of(halves[j]), test::bits_of(expected)) << "column " << j;
            }
        }
    }
}

TEST(ExactBf16Gemm, WritesPositiveZerosForAnEmptySumAndNothingForAnEmptyResult) {
    const GemmCase no_depth{2, 3, 0, 5, false, false, false};
    std::mt19937 generator(1);
    const Bf16Operands operands = random_operands(no_depth, generator);
    const Tensor<bf16> zeros = product_of(detail::gemm_bf16_with, isa(), no_depth, operands);
    for (const bf16 value : zeros.data()) {
        EXPECT_EQ(value.bits(), 0x0000U);
    }
    const GemmCase no_rows{1, 0, 4, 3, false, false, false};
    EXPECT_EQ(
        product_of(detail::gemm_bf16_with, isa(), no_rows, random_operands(no_rows, generator))
            .data()
            .size(),
        0U);
}

// Infinities, NaNs, sums past bf16's largest value and halfway cases: every
// tile gives the float GEMM's bits on the widened operands (NaN payloads
// included), rounded once.
TEST(ExactBf16Gemm, RoundsInfinitiesNaNsAndOverflowsAsTheWidenedFloatGemm) {
    const GemmCase c{1, 13, 9, 35, false, false, false};
    std::mt19937 generator(3);
    test::GemmOperands<float> values = test::gemm_operands<float>(c, generator);
    const float specials[] = {std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(),
                              3.0e38F,
                              -3.0e38F,
                              1.00390625F,
                              0.0F};
    for (std::size_t i = 0; i < values.a.size(); i += 5) {
        values.a[i] = specials[(i / 5) % std::size(specials)];
    }
    const Bf16Operands operands = bf16_operands(std::move(values));
    for (const Isa isa : supported_isas()) {
        SCOPED_TRACE(name_of(isa));
        const Tensor<float> sums =
            test::gemm_product<float>({.isa = isa, .parallel_threshold = 0}, c, operands.widened);
        test::expect_bit_equal(product_of(detail::gemm_bf16_with, isa, c, operands),
                               rounded_tensor(sums));
    }
}

// The dot product's documented bound, against the exact sum s (computed in
// double, whose error is also allowed): |result - s| <= gamma_k sum |a_p b_p|
// + 2^-8 |result| (the final rounding to bf16).
::testing::AssertionResult within_dot_bound(const GemmCase& c,
                                            const Bf16Operands& o,
                                            const Tensor<bf16>& result) {
    const auto gamma = [&](double unit) {
        const double k = static_cast<double>(c.depth);
        return k * unit / (1 - k * unit);
    };
    const double float_gamma = gamma(std::ldexp(1.0, -24));
    const double double_gamma = gamma(std::ldexp(1.0, -53));
    for (std::size_t batch = 0; batch < c.batches; ++batch) {
        for (std::size_t i = 0; i < c.rows; ++i) {
            for (std::size_t j = 0; j < c.columns; ++j) {
                double sum = 0;
                double magnitude = 0;
                for (std::size_t p = 0; p < c.depth; ++p) {
                    const double term = double(test::element(o.widened.a_view, batch, i, p)) *
                                        double(test::element(o.widened.b_view, batch, p, j));
                    sum += term;
                    magnitude += std::abs(term);
                }
                const double value =
                    static_cast<double>(result.data()[(batch * c.rows + i) * c.columns + j]);
                const double bound =
                    (float_gamma + double_gamma) * magnitude + std::ldexp(std::abs(value), -8);
                if (!(std::abs(value - sum) <= bound)) {
                    return ::testing::AssertionFailure()
                           << "output (" << batch << ", " << i << ", " << j << ") is " << value
                           << ", the exact sum " << sum << ", beyond the bound " << bound;
                }
            }
        }
    }
    return ::testing::AssertionSuccess();
}

class Bf16DotGemm : public ::testing::Test {
protected:
    void SetUp() override {
        if (!detail::runs_avx512_bf16(Isa::Avx512)) {
            GTEST_SKIP() << "this processor has no AVX512_BF16";
        }
    }
};

TEST_F(Bf16DotGemm, StaysWithinItsBoundOfTheExactSumOnRandomShapes) {
    const ThreadCountGuard guard;
    std::mt19937 generator(99);
    std::vector<GemmCase> cases = blocked_cases();
    for (int trial = 0; trial < 40; ++trial) {
        cases.push_back(random_case(generator));
    }
    for (const GemmCase& c : cases) {
        const Bf16Operands operands = random_operands(c, generator);
        for (const std::size_t threads : {1, 2, 3}) {
            set_threads(threads);
            SCOPED_TRACE(describe(c, Isa::Avx512, threads));
            EXPECT_TRUE(within_dot_bound(
                c, operands, product_of(detail::gemm_bf16_dot_with, Isa::Avx512, c, operands)));
        }
    }
}

// Small integers: every product and partial sum is an integer below 2^24, so
// every order of summing gives the exact sum, and the dot product the exact
// product's bits (which checks its packing of k pairs, layouts and edges).
TEST_F(Bf16DotGemm, GivesTheExactBitsWhereEveryPartialSumIsExact) {
    const ThreadCountGuard guard;
    std::mt19937 generator(5);
    std::vector<GemmCase> cases = blocked_cases();
    for (int trial = 0; trial < 30; ++trial) {
        cases.push_back(random_case(generator));
    }
    for (const GemmCase& c : cases) {
        test::GemmOperands<float> values = test::gemm_operands<float>(c, generator);
        for (std::vector<float>* operand : {&values.a, &values.b}) {
            for (float& value : *operand) {
                value = static_cast<float>(static_cast<int>(generator() % 9) - 4);
            }
        }
        const Bf16Operands operands = bf16_operands(std::move(values));
        for (const std::size_t threads : {1, 2}) {
            set_threads(threads);
            SCOPED_TRACE(describe(c, Isa::Avx512, threads));
            test::expect_bit_equal(product_of(detail::gemm_bf16_dot_with, Isa::Avx512, c, operands),
                                   product_of(detail::gemm_bf16_with, Isa::Avx512, c, operands));
        }
    }
}

// The dot product sums each output's k pairs in one order, whichever thread
// takes it: random values (whose sums round differently in another order)
// give the one-thread bits on two and three threads.
TEST_F(Bf16DotGemm, GivesTheSameBitsOnEveryThreadCount) {
    const ThreadCountGuard guard;
    std::mt19937 generator(23);
    for (const GemmCase& c : blocked_cases()) {
        const Bf16Operands operands = random_operands(c, generator);
        set_threads(1);
        const Tensor<bf16> one_thread =
            product_of(detail::gemm_bf16_dot_with, Isa::Avx512, c, operands);
        for (const std::size_t threads : {2, 3}) {
            set_threads(threads);
            SCOPED_TRACE(describe(c, Isa::Avx512, threads));
            test::expect_bit_equal(product_of(detail::gemm_bf16_dot_with, Isa::Avx512, c, operands),
                                   one_thread);
        }
    }
}

// vdpbf16ps reads a denormal input as zero: 2^-133 x 1 is a denormal float the
// exact product keeps (the bf16 2^-133) and the dot product drops. Eight rows,
// more than the exact sweep takes.
TEST_F(Bf16DotGemm, ReadsDenormalInputsAsZero) {
    constexpr std::size_t rows = 8;
    static_assert(rows > detail::row_sweep_rows);
    const GemmCase c{1, rows, 1, 1, false, false, false};
    std::vector<float> a(rows, static_cast<float>(bf16::from_bits(0x0001)));
    std::vector<float> b{1.0F};
    test::GemmOperands<float> values{a, b, {nullptr, 1, 1, 1}, {nullptr, 1, 1, 1}};
    const Bf16Operands operands = bf16_operands(std::move(values));
    const Tensor<bf16> exact = product_of(detail::gemm_bf16_with, Isa::Avx512, c, operands);
    const Tensor<bf16> dot = product_of(detail::gemm_bf16_dot_with, Isa::Avx512, c, operands);
    for (std::size_t i = 0; i < rows; ++i) {
        EXPECT_EQ(exact.data()[i].bits(), 0x0001U) << "row " << i;
        EXPECT_EQ(dot.data()[i].bits(), 0x0000U) << "row " << i;
    }
}

// A product of at most row_sweep_rows rows over a row-major B is bound by
// reading B: the dot product runs the exact sweep there, whatever the values.
TEST_F(Bf16DotGemm, RunsTheExactSweepForAFewRowsOverARowMajorB) {
    const ThreadCountGuard guard;
    std::mt19937 generator(17);
    for (const std::size_t rows : {1, 2, 4}) {
        const GemmCase c{1, rows, 300, 700, false, false, false};
        const Bf16Operands operands = random_operands(c, generator);
        for (const std::size_t threads : {1, 2}) {
            set_threads(threads);
            SCOPED_TRACE(describe(c, Isa::Avx512, threads));
            test::expect_bit_equal(product_of(detail::gemm_bf16_dot_with, Isa::Avx512, c, operands),
                                   product_of(detail::gemm_bf16_with, Isa::Avx512, c, operands));
        }
    }
}

TEST(Bf16DotGemmFallback, RunsTheExactProductWhereTheIsaIsBelowAvx512) {
    std::mt19937 generator(11);
    const GemmCase c{2, 13, 21, 35, false, true, false};
    const Bf16Operands operands = random_operands(c, generator);
    for (const Isa isa : supported_isas()) {
        if (isa == Isa::Avx512) {
            continue;
        }
        SCOPED_TRACE(name_of(isa));
        EXPECT_FALSE(detail::runs_avx512_bf16(isa));
        test::expect_bit_equal(product_of(detail::gemm_bf16_dot_with, isa, c, operands),
                               product_of(detail::gemm_bf16_with, isa, c, operands));
    }
}

// The run-time check agrees with the flags Linux reports (where it reports them).
TEST(Bf16DotGemmFallback, DetectsAvx512Bf16AsTheOperatingSystemReportsIt) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    bool has_flags = false;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("flags", 0) == 0) {
            has_flags = true;
            break;
        }
    }
    if (!has_flags) {
        GTEST_SKIP() << "no /proc/cpuinfo flags to compare with";
    }
    const auto reports = [&](const std::string& flag) {
        return (line + ' ').find(' ' + flag + ' ') != std::string::npos;
    };
    const bool avx512 = supported_isas().back() == Isa::Avx512;
    EXPECT_EQ(detail::runs_avx512_bf16(Isa::Avx512),
              reports("avx512_bf16") && reports("avx512bw") && avx512);
}

}  // namespace bf16_gemm_test
}  // namespace
}  // namespace topos
