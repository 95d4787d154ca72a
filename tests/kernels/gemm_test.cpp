// The exact GEMM equals the plain reference loop bit for bit: random shapes
// (edge tiles, m/n/k of 1, primes, k across block boundaries), transposed and
// batch-shared operands, float and double, every micro-kernel this processor
// runs and several thread counts.
#include "support/bit_equal.hpp"
#include "support/gemm_cases.hpp"
#include "support/thread_count_guard.hpp"
#include <topos/core/threads.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::GemmCase;

using test::ThreadCountGuard;

// Cuts even the smallest products into tiles over the pool, so that small test
// shapes still exercise every tiling.
detail::GemmOptions tiles_always(Isa isa) {
    return {.isa = isa, .parallel_threshold = 0};
}

std::string describe(const GemmCase& c, Isa isa, std::size_t threads) {
    return std::string(name_of(isa)) + ", " + std::to_string(threads) + " threads, batches " +
           std::to_string(c.batches) + ", m " + std::to_string(c.rows) + ", k " +
           std::to_string(c.depth) + ", n " + std::to_string(c.columns) +
           (c.transpose_a ? ", A transposed" : "") + (c.transpose_b ? ", B transposed" : "") +
           (c.shared_b ? ", B shared" : "");
}

template <Element T>
void expect_reference_bits(const GemmCase& c, std::mt19937& generator) {
    const test::GemmOperands<T> operands = test::gemm_operands<T>(c, generator);
    const Tensor<T> expected = test::reference_product(c, operands);
    for (const std::size_t threads : {1, 2, 3}) {
        set_threads(threads);
        for (const Isa isa : supported_isas()) {
            SCOPED_TRACE(describe(c, isa, threads));
            test::expect_bit_equal(test::gemm_product(tiles_always(isa), c, operands), expected);
        }
    }
}

// Extents that make edge tiles for every micro-kernel (tiles of 4, 6, 12 and
// 24 rows, 4 to 32 columns) and primes.
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

template <class T>
class ExactGemm : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ExactGemm, Elements);

TYPED_TEST(ExactGemm, EqualsTheReferenceLoopOnRandomShapes) {
    const ThreadCountGuard guard;
    std::mt19937 generator(20261130);
    for (int trial = 0; trial < 60; ++trial) {
        expect_reference_bits<TypeParam>(random_case(generator), generator);
    }
}

TYPED_TEST(ExactGemm, EqualsTheReferenceLoopAcrossBlockBoundaries) {
    const ThreadCountGuard guard;
    std::mt19937 generator(7);
    // More rows than a row block, k across two and three k blocks, more
    // columns than a column block, and a batch of products too short to split;
    // the narrow tiles (at most 8 or 16 columns) across the same boundaries;
    // k blocks of B large enough to be packed by every thread, row-major,
    // transposed, with a short last panel and across a column block; few
    // rows over many columns, which threads split by columns, each packing
    // its own panels of B.
    const GemmCase cases[] = {
        {1, 128, 600, 1000, false, false, false},
        {1, 200, 300, 530, false, true, false},
        {1, 131, 263, 37, false, false, false},
        {1, 251, 263, 8, true, false, false},
        {1, 131, 520, 16, false, true, false},
        {2, 245, 300, 5, true, true, true},
        {1, 29, 517, 19, true, true, false},
        {2, 3, 5, 4099, false, true, false},
        {1, 1, 1, 1, false, false, false},
        {9, 7, 300, 13, false, false, true},
        {1, 1, 257, 300, true, false, false},
        {1, 37, 300, 413, false, false, false},
        {2, 70, 270, 301, false, true, false},
        {1, 5, 20, 4200, false, false, false},
        // The row sweep (at most four rows, B row-major): one row over many
        // column parts, one row whose parts end in a half and a quarter of
        // its widest block, a shared B under transposed rows, every row
        // count with ragged column edges.
        {1, 1, 300, 4099, false, false, false},
        {1, 1, 40, 200, false, false, false},
        {3, 4, 70, 1000, true, false, true},
        {2, 2, 33, 531, false, false, false},
        {1, 3, 129, 275, true, false, false},
    };
    for (const GemmCase& c : cases) {
        expect_reference_bits<TypeParam>(c, generator);
    }
}

TYPED_TEST(ExactGemm, EqualsTheReferenceLoopUnderADirectedRoundingMode) {
    const ThreadCountGuard guard;
    std::mt19937 generator(11);
    ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
    expect_reference_bits<TypeParam>({2, 67, 41, 45, false, true, false}, generator);
    std::fesetround(FE_TONEAREST);
}

TYPED_TEST(ExactGemm, StartsEverySumAtPositiveZero) {
    const ThreadCountGuard guard;
    // (-0) x 1 is -0; fma(-0, 1, +0) is +0, a plain first product would keep -0.
    const GemmCase c{2, 9, 5, 17, false, false, false};
    std::mt19937 generator(1);
    test::GemmOperands<TypeParam> operands = test::gemm_operands<TypeParam>(c, generator);
    std::fill(operands.a.begin(), operands.a.end(), TypeParam{-0.0});
    std::fill(operands.b.begin(), operands.b.end(), TypeParam{1});
    for (const Isa isa : supported_isas()) {
        SCOPED_TRACE(name_of(isa));
        const Tensor<TypeParam> product = test::gemm_product({.isa = isa}, c, operands);
        for (const TypeParam value : product.data()) {
            ASSERT_EQ(test::bits_of(value), test::bits_of(TypeParam{0}));
        }
    }
}

TYPED_TEST(ExactGemm, WritesPositiveZerosWhenTheInnerExtentIsZero) {
    const GemmCase c{2, 3, 0, 4, false, false, false};
    std::mt19937 generator(2);
    const test::GemmOperands<TypeParam> operands = test::gemm_operands<TypeParam>(c, generator);
    for (const Isa isa : supported_isas()) {
        test::expect_bit_equal(test::gemm_product({.isa = isa}, c, operands),
                               Tensor<TypeParam>::filled({2, 3, 4}, TypeParam{0}));
    }
}

// A product split along its depth into two calls, the second continuing the
// sums the first stored, equals the product in one call: each element's fma
// chain runs on from the stored partial sum.
TYPED_TEST(ExactGemm, ContinuesStoredSumsAcrossASplitDepth) {
    const ThreadCountGuard guard;
    std::mt19937 generator(20261202);
    const auto size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    for (int trial = 0; trial < 30; ++trial) {
        GemmCase c = random_case(generator);
        c.batches = 1;
        c.depth = 2 + generator() % 700;  // across the depth blocks too
        const test::GemmOperands<TypeParam> operands = test::gemm_operands<TypeParam>(c, generator);
        const Tensor<TypeParam> expected = test::reference_product(c, operands);
        const std::size_t split = 1 + generator() % (c.depth - 1);
        for (const Isa isa : supported_isas()) {
            SCOPED_TRACE(describe(c, isa, 1) + ", split at " + std::to_string(split));
            std::vector<TypeParam> out(c.rows * c.columns,
                                       std::numeric_limits<TypeParam>::quiet_NaN());
            const detail::MatrixTarget<TypeParam> target{out.data(), size(c.columns), 0};
            detail::MatrixView<TypeParam> a = operands.a_view;
            detail::MatrixView<TypeParam> b = operands.b_view;
            detail::GemmOptions options{.isa = isa};
            detail::gemm_with<TypeParam>(options, {1, c.rows, split, c.columns}, a, b, target);
            a.data += size(split) * a.column_stride;
            b.data += size(split) * b.row_stride;
            options.continue_sums = true;
            detail::gemm_with<TypeParam>(
                options, {1, c.rows, c.depth - split, c.columns}, a, b, target);
            test::expect_bit_equal(Tensor<TypeParam>({1, c.rows, c.columns}, out), expected);
        }
    }
}

TEST(ExactGemm, ChoosesTheFastestAvailableMicroKernel) {
    const auto isas = supported_isas();
    ASSERT_FALSE(isas.empty());
    EXPECT_EQ(isas.front(), Isa::Portable);
    EXPECT_EQ(isa(), isas.back());
#if defined(__x86_64__)
    __builtin_cpu_init();
    const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    EXPECT_EQ(std::find(isas.begin(), isas.end(), Isa::Avx2) != isas.end(), has_avx2);
    EXPECT_EQ(std::find(isas.begin(), isas.end(), Isa::Avx512) != isas.end(),
              __builtin_cpu_supports("avx512f") != 0);
#endif
}

}  // namespace
}  // namespace topos
