// Function: a model written once and run at any batch size. Each call is
// checked against the interpreter of a network recorded by hand at the same
// shapes, and gradients against the engine's reverse scan of that network;
// modules and parameters of a sealed model are read on the tapes a Function
// reopens, and values of unrelated tapes are still refused.
#include "support/bit_equal.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;

// A [4, 8, 3] tanh MLP on its own tape, sealed: a network of parameters only.
struct Model {
    Tape<double> tape;
    Mlp<double> mlp{tape, {4, 8, 3}, Activation::Tanh, init::xavier(7)};
    Network<double> network = std::move(tape).into_network();
};

Tensor<double> rows(std::size_t count, std::uint64_t seed) {
    return init::normal(seed, 1.0).make<double>(Shape{count, 4});
}

Tensor<double> labels(std::size_t count) {
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        values[i] = static_cast<double>(i % 3);
    }
    return Tensor<double>(Shape{count}, values);
}

// The logits of `x` through a network recorded by hand on a reopened tape.
Tensor<double> logits_by_hand(const Model& model,
                              const Parameters<double>& parameters,
                              const Tensor<double>& x) {
    Tape<double> tape = model.network.reopen();
    const Symbol logits = model.mlp.express(tape.input(x));
    return std::move(tape).into_network().forward(parameters).of(logits);
}

TEST(Function, RunsTheModelAtEveryBatchSizeWithTheInterpretersBits) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    for (const std::size_t batch : {1u, 5u, 297u}) {
        const Tensor<double> x = rows(batch, batch);
        const Tensor<double> logits = predict(parameters, x);
        EXPECT_EQ(logits.shape(), (Shape{batch, 3}));
        EXPECT_TRUE(test::bit_equal(logits, logits_by_hand(model, parameters, x))) << batch;
    }
}

TEST(Function, CompilesOncePerTupleOfShapes) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    std::size_t recordings = 0;
    const Function<double> predict(model.network, [&](const Value<double>& x) {
        ++recordings;
        return model.mlp.express(x);
    });
    (void)predict(parameters, rows(5, 1));
    (void)predict(parameters, rows(5, 2));
    (void)predict(parameters, rows(7, 3));
    (void)predict(parameters, rows(5, 4));
    EXPECT_EQ(recordings, 2u);
    EXPECT_EQ(predict.compiled(), 2u);
    EXPECT_THAT(predict.describe(), HasSubstr("Function(real) over 4 parameters, 2 plans:"));
    EXPECT_THAT(predict.describe(), HasSubstr("[7, 4]"));
}

TEST(Function, GradientsEqualTheReverseScanOfTheSameNetwork) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> loss(model.network,
                                [&](const Value<double>& x, const Value<double>& y) {
                                    return cross_entropy(model.mlp.express(x), y);
                                },
                                {Argument::Real, Argument::Indices});
    const Tensor<double> x = rows(6, 11);
    const auto [value, gradients] = loss.value_and_gradients(parameters, x, labels(6));

    Tape<double> tape = model.network.reopen();
    const Symbol target = cross_entropy(model.mlp.express(tape.input(x)), tape.indices(labels(6)));
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(parameters);
    EXPECT_TRUE(test::bit_equal(value, run.of(target)));
    const Parameters<double> scanned = run.backward(target).parameters(parameters);
    ASSERT_EQ(gradients.size(), scanned.size());
    for (std::size_t slot = 0; slot < scanned.size(); ++slot) {
        EXPECT_TRUE(test::bit_equal(gradients.values()[slot], scanned.values()[slot])) << slot;
    }
}

TEST(Function, TrainsOnBatchesOfFiftyAndEvaluatesTwoHundredNinetySevenRows) {
    const Model model;
    const Function<double> loss(model.network,
                                [&](const Value<double>& x, const Value<double>& y) {
                                    return cross_entropy(model.mlp.express(x), y);
                                },
                                {Argument::Real, Argument::Indices});
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });

    const optim::Adam adam({.learning_rate = 0.05});
    Parameters<double> parameters = model.network.parameters();
    optim::AdamState<double> state = adam.start(parameters);
    const Tensor<double> x = rows(50, 3);
    const double first = loss(parameters, x, labels(50)).scalar();
    for (int step = 0; step < 20; ++step) {
        const auto [value, gradients] = loss.value_and_gradients(parameters, x, labels(50));
        auto stepped = adam.step(parameters, gradients, state);
        parameters = std::move(stepped.parameters);
        state = std::move(stepped.state);
    }
    EXPECT_LT(loss(parameters, x, labels(50)).scalar(), first);

    const Tensor<double> test = rows(297, 5);
    const Tensor<double> logits = predict(parameters, test);
    EXPECT_EQ(logits.shape(), (Shape{297, 3}));
    EXPECT_TRUE(test::bit_equal(logits, logits_by_hand(model, parameters, test)));
}

TEST(Function, ReadsTheParametersOfASealedModelWithoutAModule) {
    Tape<double> tape;
    const Value<double> w = tape.parameter(Tensor<double>(Shape{2, 1}, {0.5, -2.0}));
    const Value<double> b = tape.parameter(0.25);
    const Network<double> model = std::move(tape).into_network();
    const Function<double> affine(model,
                                  [&](const Value<double>& x) { return (x.matmul(w) + b).tanh(); });
    const Tensor<double> y = affine(model.parameters(), Tensor<double>(Shape{1, 2}, {1.0, 3.0}));
    EXPECT_EQ(y.scalar(), std::tanh(0.5 - 6.0 + 0.25));
}

TEST(Function, RefusesABodyThatCannotTakeTheDeclaredArguments) {
    const Model model;
    const auto one = [&](const Value<double>& x) { return model.mlp.express(x); };
    EXPECT_THAT(
        [&] {
            (void)Function<double>(model.network, one, {Argument::Real, Argument::Real});
        },
        ::testing::ThrowsMessage<Error>(HasSubstr("cannot be called with 2 arguments")));
    EXPECT_THROW((void)Function<double>(model.network, one, {}), Error);
}

TEST(Function, RefusesInputsOfAnotherCountAndIndicesThatAreNotIntegers) {
    const Model model;
    const Function<double> loss(model.network,
                                [&](const Value<double>& x, const Value<double>& y) {
                                    return cross_entropy(model.mlp.express(x), y);
                                },
                                {Argument::Real, Argument::Indices});
    const Parameters<double> parameters = model.network.parameters();
    EXPECT_THAT([&] { (void)loss(parameters, rows(2, 1)); },
                ::testing::ThrowsMessage<FeedError>(HasSubstr("takes 2 inputs, but 1 were given")));
    EXPECT_THROW((void)loss(parameters, rows(2, 1), Tensor<double>(Shape{2}, {0.5, 1.0})),
                 FeedError);
}

TEST(Function, RefusesParametersOfAnotherNetwork) {
    const Model model;
    const Model other;
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    EXPECT_THROW((void)predict(other.network.parameters(), rows(2, 1)), SymbolError);
}

TEST(Function, ValueAndGradientsNeedsARankZeroValue) {
    const Model model;
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    EXPECT_THROW((void)predict.value_and_gradients(model.network.parameters(), rows(2, 1)),
                 GradientError);
}

// ---- values of a network and of tapes reopened from it ----

TEST(OneTape, AModuleExpressesOnATapeReopenedFromItsNetwork) {
    const Model model;
    Tape<double> first = model.network.reopen();
    Tape<double> second = model.network.reopen();
    const Value<double> a = model.mlp.express(first.input(rows(2, 1)));
    const Value<double> b = model.mlp.express(second.input(rows(3, 1)));
    EXPECT_EQ(a.shape(), (Shape{2, 3}));
    EXPECT_EQ(b.shape(), (Shape{3, 3}));
    EXPECT_EQ(model.network.nodes().size(), 4u);
}

TEST(OneTape, ValuesOfUnrelatedTapesAreStillRefused) {
    const Model model;
    Tape<double> first = model.network.reopen();
    Tape<double> second = model.network.reopen();
    const Value<double> a = first.input(rows(2, 1));
    const Value<double> b = second.input(rows(2, 1));
    EXPECT_THAT([&] { (void)(a + b); },
                ::testing::ThrowsMessage<TapeError>(HasSubstr("of another tape")));
    Tape<double> unrelated;
    const Value<double> c = unrelated.input(rows(2, 1));
    EXPECT_THROW((void)(c - model.mlp.layers()[0].weight()), TapeError);
    EXPECT_EQ(first.nodes().size(), 5u);
    EXPECT_EQ(unrelated.nodes().size(), 1u);
}

}  // namespace
}  // namespace topos
