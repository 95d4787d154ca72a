// Function from several threads at once: each call gives the bits of a
// network recorded by hand at its shape, and each shape compiles once.
#include "support/bit_equal.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace topos {
namespace {

struct Model {
    Tape<double> tape;
    Mlp<double> mlp{tape, {4, 8, 3}, Activation::Tanh, init::xavier(7)};
    Network<double> network = std::move(tape).into_network();
};

Tensor<double> rows(std::size_t count, std::uint64_t seed) {
    return init::normal(seed, 1.0).make<double>(Shape{count, 4});
}

Tensor<double> logits_by_hand(const Model& model,
                              const Parameters<double>& parameters,
                              const Tensor<double>& x) {
    Tape<double> tape = model.network.reopen();
    const Symbol logits = model.mlp.express(tape.input(x));
    return std::move(tape).into_network().forward(parameters).of(logits);
}

TEST(Function, IsSafeToCallFromSeveralThreadsAtOnce) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    std::vector<Tensor<double>> expected;
    for (std::size_t batch = 1; batch <= 4; ++batch) {
        expected.push_back(logits_by_hand(model, parameters, rows(batch, batch)));
    }
    std::vector<std::thread> threads;
    std::vector<int> agreed(8, 0);
    for (std::size_t t = 0; t < agreed.size(); ++t) {
        threads.emplace_back([&, t] {
            for (std::size_t round = 0; round < 10; ++round) {
                const std::size_t batch = 1 + (t + round) % 4;
                agreed[t] +=
                    test::bit_equal(predict(parameters, rows(batch, batch)), expected[batch - 1]);
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (const int count : agreed) {
        EXPECT_EQ(count, 10);
    }
    EXPECT_EQ(predict.compiled(), 4u);
}

}  // namespace
}  // namespace topos
