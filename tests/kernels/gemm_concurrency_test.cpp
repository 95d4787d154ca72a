// Many user threads multiply at once through the one pool: each result equals
// the reference loop's bits (the pool serves one region at a time and the
// others run inline). Runs under ThreadSanitizer with the concurrency label.
#include "kernels/gemm.hpp"
#include "support/bit_equal.hpp"
#include "support/gemm_cases.hpp"
#include <topos/core/threads.hpp>

#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

namespace topos {
namespace {

TEST(ExactGemm, GivesReferenceBitsWhileManyThreadsMultiplyAtOnce) {
    set_threads(3);
    // These products are small: cut them into tiles over the pool all the same.
    const detail::GemmOptions tiles_always{.parallel_threshold = 0};
    constexpr std::size_t user_threads = 6;
    std::vector<test::GemmCase> cases;
    std::vector<test::GemmOperands<float>> operands;
    std::vector<Tensor<float>> expected;
    std::mt19937 generator(99);
    for (std::size_t t = 0; t < user_threads; ++t) {
        cases.push_back({1 + t % 2, 40 + 7 * t, 30 + t, 50 - 3 * t, t % 3 == 1, t % 2 == 1, false});
        operands.push_back(test::gemm_operands<float>(cases.back(), generator));
        expected.push_back(test::reference_product(cases.back(), operands.back()));
    }
    std::vector<Tensor<float>> results(user_threads);
    std::vector<std::thread> workers;
    for (std::size_t t = 0; t < user_threads; ++t) {
        workers.emplace_back([&, t] {
            for (int repeat = 0; repeat < 20; ++repeat) {
                results[t] = test::gemm_product(tiles_always, cases[t], operands[t]);
            }
        });
    }
    for (std::thread& worker : workers) {
        worker.join();
    }
    for (std::size_t t = 0; t < user_threads; ++t) {
        EXPECT_TRUE(test::bit_equal(results[t], expected[t])) << "thread " << t;
    }
    set_threads(0);
}

}  // namespace
}  // namespace topos
