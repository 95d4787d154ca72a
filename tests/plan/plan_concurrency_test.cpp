// One plan, many threads: a plan holds no state, so every thread's run equals
// its single-threaded answer (this suite also runs under ThreadSanitizer).
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace topos {
namespace {

struct Branches {
    Network<double> network;
    Symbol input;
    Symbol root;
};

Branches branches() {
    Tape<double> tape;
    auto x = tape.input(Tensor<double>({3}, {0.5, -1.0, 2.0}));
    auto scale = tape.parameter(Tensor<double>({3}, {1.5, 2.0, -0.5}));
    auto inner = (x * scale).tanh();
    const auto root = (inner * inner).sum();
    return Branches{std::move(tape).into_network(), x, root};
}

TEST(Plan, ServesManyThreadsAtOnce) {
    const Branches graph = branches();
    const auto parameters = graph.network.parameters();
    const Plan<double> plan = graph.network.entry({graph.root}).lower();
    std::vector<Tensor<double>> results(8);
    std::vector<Tensor<double>> expected(8);
    for (std::size_t t = 0; t < 8; ++t) {
        const Tensor<double> feed({3}, {0.1 * double(t), -0.2, 0.3 * double(t)});
        expected[t] = graph.network.forward(parameters, {{graph.input, feed}}).of(graph.root);
    }
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            const Tensor<double> feed({3}, {0.1 * double(t), -0.2, 0.3 * double(t)});
            for (int repeat = 0; repeat < 50; ++repeat) {
                results[t] = plan.forward(parameters, {{graph.input, feed}}).of(graph.root);
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (std::size_t t = 0; t < 8; ++t) {
        EXPECT_TRUE(results[t].bit_equal(expected[t])) << "thread " << t;
    }
}

}  // namespace
}  // namespace topos
