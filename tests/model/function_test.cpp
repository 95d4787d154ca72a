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
#include <fstream>
#include <sstream>
#include <string>
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

// The model's cross-entropy over (rows, labels), the arguments declared as
// `arguments`; `model` must outlive it.
Function<double> loss_of(const Model& model,
                         std::vector<Argument> arguments = {Argument::Real, Argument::Indices}) {
    return Function<double>(
        model.network,
        [&model](const Value<double>& x, const Value<double>& y) {
            return cross_entropy(model.mlp.express(x), y);
        },
        std::move(arguments));
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

// A call under an Autocast records its own plan, with the products rounded
// as the model recorded by hand under the same Autocast; calls outside one
// keep the double plan.
TEST(Function, ACallUnderAnAutocastHasItsOwnPlanWithNarrowedProducts) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    const Tensor<double> x = rows(5, 1);
    const Tensor<double> in_double = predict(parameters, x);
    Tensor<double> in_float = in_double;
    Tensor<double> by_hand = in_double;
    {
        const Autocast products(ElementType::F32);
        in_float = predict(parameters, x);
        by_hand = logits_by_hand(model, parameters, x);
    }
    EXPECT_TRUE(test::bit_equal(in_float, by_hand));
    EXPECT_FALSE(test::bit_equal(in_float, in_double));
    EXPECT_TRUE(test::bit_equal(predict(parameters, x), in_double));
    EXPECT_EQ(predict.compiled(), 2u);
}

TEST(Function, GradientsEqualTheReverseScanOfTheSameNetwork) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> loss = loss_of(model);
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

TEST(Function, AnObserverSeesEveryGradientOnceFinalWhileTheBackwardPassRunsOn) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> loss = loss_of(model);
    const Tensor<double> x = rows(6, 11);
    std::size_t calls = 0;
    std::vector<std::size_t> call_of_slot(parameters.size(), 0);
    std::vector<std::vector<double>> seen(parameters.size());
    std::vector<double> value_seen;
    const auto [value, gradients] = loss.value_and_gradients(
        parameters,
        std::vector{x, labels(6)},
        [&](std::span<const FinishedOutput<double>> finished) {
            for (const FinishedOutput<double>& output : finished) {
                std::vector<double> elements(output.elements.begin(), output.elements.end());
                if (output.slot) {
                    EXPECT_TRUE(seen[*output.slot].empty()) << "slot " << *output.slot << " twice";
                    seen[*output.slot] = std::move(elements);
                    call_of_slot[*output.slot] = calls;
                } else {
                    EXPECT_TRUE(value_seen.empty()) << "the value twice";
                    value_seen = std::move(elements);
                }
            }
            ++calls;
        });
    EXPECT_TRUE(test::bit_equal(value, Tensor<double>(value_seen.front())));
    const auto [unobserved_value, unobserved] = loss.value_and_gradients(parameters, x, labels(6));
    EXPECT_TRUE(test::bit_equal(value, unobserved_value));
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        EXPECT_TRUE(test::bit_equal(gradients.values()[slot], unobserved.values()[slot]));
        EXPECT_EQ(seen[slot],
                  std::vector<double>(gradients.values()[slot].data().begin(),
                                      gradients.values()[slot].data().end()))
            << "slot " << slot;
    }
    // The last layer's gradients are final before the first layer's, which
    // the last step finishes: a caller can send them while the rest is computed.
    const std::size_t last_slot = parameters.size() - 1;
    EXPECT_LT(call_of_slot[last_slot], call_of_slot[0]);
    EXPECT_LT(call_of_slot[last_slot], calls - 1);
}

TEST(Function, TrainsOnBatchesOfFiftyAndEvaluatesTwoHundredNinetySevenRows) {
    const Model model;
    const Function<double> loss = loss_of(model);
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
    EXPECT_THAT(
        [&] { (void)Function<double>(model.network, one, {}); },
        ::testing::ThrowsMessage<Error>(HasSubstr("takes 1 to 8 arguments; 0 were declared")));
}

TEST(Function, RefusesInputsOfAnotherCountAndIndicesThatAreNotIntegers) {
    const Model model;
    const Function<double> loss = loss_of(model);
    const Parameters<double> parameters = model.network.parameters();
    EXPECT_THAT([&] { (void)loss(parameters, rows(2, 1)); },
                ::testing::ThrowsMessage<FeedError>(HasSubstr(
                    "Function call: this Function takes 2 arguments (real, indices), but 1 was "
                    "given")));
    EXPECT_THAT([&] { (void)loss(parameters, rows(2, 1), labels(2), labels(2)); },
                ::testing::ThrowsMessage<FeedError>(HasSubstr("but 3 were given")));
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

// ---- errors in the terms of the call ----

Tensor<double> normal(const Shape& shape) {
    return init::normal(1, 1.0).make<double>(shape);
}

TEST(Function, ACallThatDoesNotFitNamesTheArgumentAndTheShapeTheBodyNeeds) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    (void)predict(parameters, rows(5, 1));
    EXPECT_THAT(
        [&] {
            (void)predict(parameters, normal(Shape{8, 29}));
        },
        ::testing::ThrowsMessage<ShapeError>(::testing::AllOf(
            HasSubstr("Function call: argument 0 (real): expected [_, 4], got [8, 29] "
                      "(a plan was compiled at [5, 4]): MatMul of argument 0 [8, 29], "
                      "parameter 0 [4, 8]: the inner extents differ (29 vs 4)"),
            ::testing::Not(HasSubstr("node")))));
    EXPECT_EQ(predict.compiled(), 1u);
}

TEST(Function, AFirstCallThatDoesNotFitNamesTheArgumentAndTheOperation) {
    const Model model;
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    EXPECT_THAT(
        [&] {
            (void)predict(model.network.parameters(), normal(Shape{8, 29}));
        },
        ::testing::ThrowsMessage<ShapeError>(
            HasSubstr("Function call: the body cannot take argument 0 (real) [8, 29]: "
                      "MatMul of argument 0 [8, 29], parameter 0 [4, 8]: ")));
    EXPECT_EQ(predict.compiled(), 0u);
}

TEST(Function, ARankZeroArgumentWhereTheBodyReadsABatchIsNamed) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> predict(model.network,
                                   [&](const Value<double>& x) { return model.mlp.express(x); });
    (void)predict(parameters, rows(5, 1));
    (void)predict(parameters, rows(7, 2));
    EXPECT_THAT([&] { (void)predict(parameters, Tensor<double>(3.0)); },
                ::testing::ThrowsMessage<ShapeError>(::testing::AllOf(
                    HasSubstr("Function call: argument 0 (real): expected [_, 4], got []"),
                    HasSubstr("MatMul of argument 0 [], parameter 0 [4, 8]"),
                    HasSubstr("argument 0 is rank 0: give it the axes the body reads"))));
}

TEST(Function, AnArgumentOfTheWrongKindIsNamedWithTheDeclarationToChange) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> real_labels = loss_of(model, {Argument::Real, Argument::Real});
    EXPECT_THAT(
        [&] { (void)real_labels(parameters, rows(2, 1), labels(2)); },
        ::testing::ThrowsMessage<ShapeError>(::testing::AllOf(
            HasSubstr("Function call: the body cannot take argument 1 (real) [2]: cross_entropy "
                      "of node 12 [2, 3] (the logits), argument 1 [2] (the labels): the labels "
                      "must hold indices"),
            HasSubstr("argument 1 is declared Argument::Real: declare it Argument::Indices"))));
    const Function<double> index_rows = loss_of(model, {Argument::Indices, Argument::Indices});
    EXPECT_THAT(
        [&] {
            (void)index_rows(parameters, Tensor<double>::filled(Shape{2, 4}, 1.0), labels(2));
        },
        ::testing::ThrowsMessage<ShapeError>(::testing::AllOf(
            HasSubstr("Function call: the body cannot take argument 0 (indices) [2, 4]: MatMul "
                      "of argument 0 [2, 4], parameter 0 [4, 8]: operand 0 holds indices"),
            HasSubstr("argument 0 is declared Argument::Indices: declare it Argument::Real"))));
}

TEST(Function, BatchesThatDisagreeAreNotReportedAsFixedExtents) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> loss = loss_of(model, {Argument::Real, Argument::Indices});
    (void)loss(parameters, rows(2, 1), labels(2));
    EXPECT_THAT([&] { (void)loss(parameters, rows(8, 1), labels(7)); },
                ::testing::ThrowsMessage<ShapeError>(::testing::AllOf(
                    HasSubstr("Function call: the body cannot take argument 1 (indices) [7]: "
                              "cross_entropy of node 12 [8, 3] (the logits), argument 1 [7] "
                              "(the labels): the labels must be [8]"),
                    ::testing::Not(HasSubstr("expected")))));
    EXPECT_THAT(
        [&] {
            (void)loss(parameters, normal(Shape{8, 29}), labels(8));
        },
        ::testing::ThrowsMessage<ShapeError>(
            HasSubstr("Function call: argument 0 (real): expected [_, 4], got [8, 29] "
                      "(a plan was compiled at [2, 4], [2]): MatMul of argument 0")));
}

// The lines of `path` (under the source tree) from the first holding `first`
// while they start with `prefix` and do not close a fenced block, each without
// `prefix`.
std::string quoted_lines(const std::string& path,
                         const std::string& first,
                         const std::string& prefix) {
    std::ifstream in(std::string(TOPOS_SOURCE_DIR) + "/" + path);
    std::string line;
    std::string text;
    bool inside = false;
    while (std::getline(in, line)) {
        inside = inside || line.find(first) != std::string::npos;
        if (inside && (line.rfind(prefix, 0) != 0 || line.rfind("```", 0) == 0)) {
            break;
        }
        if (inside) {
            text += line.substr(prefix.size()) + '\n';
        }
    }
    return text;
}

TEST(Function, DescribePrintsTheExampleOfItsHeaderAndOfTheGuide) {
    const Model model;
    const Parameters<double> parameters = model.network.parameters();
    const Function<double> loss = loss_of(model, {Argument::Real, Argument::Indices});
    (void)loss.value_and_gradients(parameters, rows(50, 1), labels(50));
    (void)loss(parameters, rows(297, 2), labels(297));
    const std::string header = quoted_lines(
        "include/topos/model/function.hpp", "Function(real, indices) over", "    //   ");
    ASSERT_FALSE(header.empty());
    EXPECT_EQ(loss.describe(), header);
    const std::string guide =
        quoted_lines("docs/guide/models.md", "Function(real, indices) over", "");
    EXPECT_THAT(guide, HasSubstr(header));
}

TEST(Function, AFailureAwayFromTheArgumentsNamesEveryArgumentsKindAndShape) {
    Tape<double> tape;
    const Value<double> w = tape.parameter(Tensor<double>(Shape{2, 1}, {0.5, -2.0}));
    const Network<double> model = std::move(tape).into_network();
    const Function<double> project(model,
                                   [&](const Value<double>& x) { return x.tanh().matmul(w); });
    EXPECT_THAT(
        [&] {
            (void)project(model.parameters(), Tensor<double>(Shape{1, 3}, {1.0, 2.0, 3.0}));
        },
        ::testing::ThrowsMessage<ShapeError>(
            HasSubstr("Function call: the body cannot be recorded at (real [1, 3]): MatMul of "
                      "node 2 [1, 3], parameter 0 [2, 1]: the inner extents differ (3 vs 2)")));
}

TEST(Function, DescribeCountsOneParameterAndOnePlanInTheSingular) {
    Tape<double> tape;
    const Value<double> w = tape.parameter(Tensor<double>(Shape{2, 1}, {0.5, -2.0}));
    const Network<double> model = std::move(tape).into_network();
    const Function<double> project(model, [&](const Value<double>& x) { return x.matmul(w); });
    EXPECT_EQ(project.describe(), "Function(real) over 1 parameter, 0 plans\n");
    (void)project(model.parameters(), Tensor<double>(Shape{1, 2}, {1.0, 3.0}));
    EXPECT_THAT(
        project.describe(),
        ::testing::StartsWith("Function(real) over 1 parameter, 1 plan:\n  value      [1, 2]: "));
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
