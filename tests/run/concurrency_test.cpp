// A Network is immutable and safe to share: eight threads forward (and run
// backward on) one network at once with different feeds and parameters, and
// every thread's results bit-equal what one thread computes alone.
#include "support/bit_equal.hpp"
#include "support/random_graphs.hpp"
#include <topos/graph/network.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace topos {
namespace {

constexpr std::size_t thread_count = 8;
constexpr int repeats = 10;

template <Element T>
struct Answer {
    std::vector<Tensor<T>> values;     // every value the generator chose, then the loss
    std::vector<Tensor<T>> gradients;  // d loss / d every parameter and input
};

template <Element T>
Answer<T> compute(const test::RandomGraph<T>& graph,
                  const Parameters<T>& parameters,
                  const std::vector<Feed<T>>& feeds) {
    const topos::Run<T> run = graph.network.forward(parameters, feeds);
    Answer<T> answer;
    for (const Symbol& value : graph.values) {
        answer.values.push_back(run.of(value));
    }
    answer.values.push_back(run.of(graph.loss));
    const Field<T> field = run.backward(graph.loss);
    for (const Symbol& source : graph.parameters) {
        answer.gradients.push_back(field.of(source));
    }
    for (const Symbol& source : graph.inputs) {
        answer.gradients.push_back(field.of(source));
    }
    return answer;
}

template <Element T>
bool same_bits(const Answer<T>& a, const Answer<T>& b) {
    if (a.values.size() != b.values.size() || a.gradients.size() != b.gradients.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        if (!a.values[i].bit_equal(b.values[i])) {
            return false;
        }
    }
    for (std::size_t i = 0; i < a.gradients.size(); ++i) {
        if (!a.gradients[i].bit_equal(b.gradients[i])) {
            return false;
        }
    }
    return true;
}

template <class T>
class SharedNetwork : public ::testing::Test {};

using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SharedNetwork, ElementTypes);

TYPED_TEST(SharedNetwork, ForwardsAndDifferentiatesOnEightThreadsWithTheSingleThreadedBits) {
    using T = TypeParam;
    test::RandomGraphOptions options;
    options.operations = 40;
    for (std::uint64_t graph_seed = 1; graph_seed <= 3; ++graph_seed) {
        const test::RandomGraph<T> graph = test::random_graph<T>(graph_seed, options);
        std::vector<Parameters<T>> parameters;
        std::vector<std::vector<Feed<T>>> feeds;
        std::vector<Answer<T>> expected;
        for (std::size_t t = 0; t < thread_count; ++t) {
            // Even threads share the recorded parameters; odd ones bring their own.
            parameters.push_back(t % 2 == 0 ? graph.network.parameters()
                                            : test::random_parameters(graph.network, 100 + t));
            feeds.push_back(test::random_feeds(graph.network, graph.inputs, 200 + t));
            expected.push_back(compute(graph, parameters[t], feeds[t]));
        }
        // Different feeds give different answers, so a mix-up cannot pass unseen.
        ASSERT_FALSE(same_bits(expected[0], expected[2]));

        std::vector<std::vector<Answer<T>>> results(thread_count);
        std::atomic<std::size_t> ready{0};
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < thread_count; ++t) {
            threads.emplace_back([&, t] {
                ++ready;
                while (ready.load() < thread_count) {
                    std::this_thread::yield();  // start together, to overlap the runs
                }
                for (int r = 0; r < repeats; ++r) {
                    results[t].push_back(compute(graph, parameters[t], feeds[t]));
                }
            });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        for (std::size_t t = 0; t < thread_count; ++t) {
            ASSERT_EQ(results[t].size(), static_cast<std::size_t>(repeats));
            for (int r = 0; r < repeats; ++r) {
                EXPECT_TRUE(same_bits(results[t][static_cast<std::size_t>(r)], expected[t]))
                    << "graph " << graph_seed << ", thread " << t << ", repeat " << r;
            }
        }
    }
}

}  // namespace
}  // namespace topos
