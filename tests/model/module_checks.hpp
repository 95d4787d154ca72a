// Checks shared by the module tests: a recorded module's gradients against
// finite differences. The module's output y is weighted by a fixed random
// tensor w and summed, loss = sum(y * w); the engine reverse scan's
// d loss / d source must equal J^T w, J the finite-difference Jacobian of y.
#pragma once

#include "support/finite_differences.hpp"
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/init.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace topos::test {

// Every parameter replaced by a normal sample of deviation 0.5, biases and
// norm weights included, so none is 0 or 1.
template <Element T>
Parameters<T> randomised(const Network<T>& network, std::uint64_t seed) {
    const Parameters<T> initial = network.parameters();
    Parameters<T> parameters = initial;
    for (const Symbol symbol : initial.symbols()) {
        parameters =
            parameters.with(symbol, init::normal(seed++, 0.5).make<T>(initial.of(symbol).shape()));
    }
    return parameters;
}

// The sources a module's gradient check differentiates by: its input, then
// every parameter of the module.
template <class Module>
std::vector<Symbol> input_and_parameters(const Value<double>& input, const Module& module) {
    std::vector<Symbol> sources{input};
    for (const Value<double>& parameter : module.parameters()) {
        sources.push_back(parameter);
    }
    return sources;
}

// What a module test records: its output, the weighted loss and the weights.
struct Weighted {
    Symbol output;
    Symbol loss;
    Tensor<double> weights;
};

inline Weighted weighted_loss(Tape<double>& tape, const Value<double>& output, std::uint64_t seed) {
    Tensor<double> weights = init::normal(seed, 1.0)(output.shape());
    const Value<double> loss = (output * tape.leaf(weights)).sum();
    return {output.symbol(), loss.symbol(), weights};
}

// Tolerance is relative to the largest gradient element over all sources, so
// a gradient that is zero in exact arithmetic (the key bias of attention: a
// shift of every score of a query cancels in the softmax) is held to the
// scale of the others, not to its own rounding noise.
inline void expect_gradients_match_finite_differences(const Network<double>& network,
                                                      const Parameters<double>& parameters,
                                                      std::span<const Feed<double>> feeds,
                                                      const Weighted& weighted,
                                                      std::span<const Symbol> sources,
                                                      double tolerance = 1e-7) {
    const Run<double> run = network.forward(parameters, feeds);
    const Field<double> gradients = run.backward(weighted.loss);
    const std::vector<double> w = to_doubles(weighted.weights);
    std::vector<std::vector<double>> actual;
    std::vector<std::vector<double>> expected;
    double scale = 0;
    for (const Symbol source : sources) {
        actual.push_back(to_doubles(gradients.of(source)));
        expected.push_back(network_jacobian(network, parameters, feeds, weighted.output, source)
                               .transpose_times(w));
        for (const double e : expected.back()) {
            scale = std::max(scale, std::abs(e));
        }
    }
    ASSERT_GT(scale, 0.0) << "every gradient is zero: the check would prove nothing";
    for (std::size_t s = 0; s < sources.size(); ++s) {
        for (std::size_t i = 0; i < actual[s].size(); ++i) {
            EXPECT_NEAR(actual[s][i], expected[s][i], tolerance * scale)
                << "d loss / d node " << sources[s].index() << ", element " << i;
        }
    }
}

}  // namespace topos::test
