// MixedPrecision: a float Function run in bf16 over a float master copy. Each
// call gives the bits of the bf16 interpreter on a network recorded by hand at
// the same shapes and converted, with the master parameters and inputs rounded
// once; gradients widen to the master's slots; index arguments bf16 cannot
// hold are refused; and a model trained in mixed precision with Adam on the
// master copy learns what the float model learns.
#include "support/bit_equal.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;

// A [4, 16, 3] tanh MLP on its own tape, sealed: a network of parameters only.
struct FloatModel {
    Tape<float> tape;
    Mlp<float> mlp{tape, {4, 16, 3}, Activation::Tanh, init::xavier(11)};
    Network<float> network = std::move(tape).into_network();
};

// Three classes, each a blob around its own centre in four dimensions.
struct ThreeBlobs {
    Tensor<float> rows;
    Tensor<float> labels;
};

ThreeBlobs three_blobs(std::size_t count, std::uint64_t seed) {
    const Tensor<float> noise = init::normal(seed, 0.6).make<float>(Shape{count, 4});
    std::vector<float> rows(count * 4);
    std::vector<float> labels(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t label = i % 3;
        labels[i] = static_cast<float>(label);
        for (std::size_t j = 0; j < 4; ++j) {
            const float centre = (j == label) ? 2.0F : (j == 3 ? -1.0F : 0.0F);
            rows[i * 4 + j] = centre + noise.data()[i * 4 + j];
        }
    }
    return {Tensor<float>({count, 4}, rows), Tensor<float>({count}, labels)};
}

Function<float> mixed_loss_of(const FloatModel& model) {
    return Function<float>(model.network,
                           [&](const Value<float>& x, const Value<float>& labels) {
                               return cross_entropy(model.mlp.express(x), labels);
                           },
                           {Argument::Real, Argument::Indices});
}

TEST(MixedPrecision, GivesTheBf16InterpretersBitsOnTheConvertedNetwork) {
    const FloatModel model;
    const Parameters<float> master = model.network.parameters();
    const MixedPrecision<float> mixed(mixed_loss_of(model));
    const ThreeBlobs data = three_blobs(12, 3);
    const auto [value, gradients] = mixed.value_and_gradients(master, data.rows, data.labels);

    Tape<float> tape = model.network.reopen();
    const auto x = tape.input(data.rows);
    const auto labels = tape.indices(data.labels);
    const auto loss = cross_entropy(model.mlp.express(x), labels);
    const Symbol loss_symbol = loss;
    const Network<bf16> by_hand = std::move(tape).into_network().convert<bf16>();
    const Parameters<bf16> narrow = master.convert<bf16>();
    const topos::Run<bf16> oracle = by_hand.forward(narrow);
    const Field<bf16> field = oracle.backward(loss_symbol);

    EXPECT_TRUE(test::bit_equal(value, oracle.of(loss_symbol).convert<float>()));
    EXPECT_TRUE(gradients.same_slots(master));
    for (const Symbol parameter : master.symbols()) {
        EXPECT_TRUE(test::bit_equal(gradients.of(parameter), field.of(parameter).convert<float>()))
            << "parameter node " << parameter.index();
    }
    EXPECT_TRUE(test::bit_equal(mixed(master, data.rows, data.labels),
                                oracle.of(loss_symbol).convert<float>()));
}

TEST(MixedPrecision, CompilesOneBf16PlanPerPostureAndShape) {
    const FloatModel model;
    const Parameters<float> master = model.network.parameters();
    const MixedPrecision<float> mixed(mixed_loss_of(model));
    const ThreeBlobs small = three_blobs(6, 1);
    (void)mixed(master, small.rows, small.labels);
    (void)mixed(master, small.rows, small.labels);
    (void)mixed.value_and_gradients(master, small.rows, small.labels);
    EXPECT_EQ(mixed.function().compiled(), 2U);
    const Plan<bf16> plan = mixed.gradient_plan({Shape{6, 4}, Shape{6}});
    // An MLP's bf16 plan fuses nothing: its products with a transposed operand
    // would widen the whole operand, and its elementwise runs are too short
    // for a map region.
    EXPECT_TRUE(plan.patterns().empty()) << plan.describe();
    EXPECT_THAT(plan.emit_stablehlo(), HasSubstr("tensor<6x4xbf16>"));
}

TEST(MixedPrecision, RefusesAnIndexArgumentBf16CannotHold) {
    const FloatModel model;
    const MixedPrecision<float> mixed(mixed_loss_of(model));
    const Tensor<float> rows = three_blobs(2, 1).rows;
    try {
        (void)mixed(model.network.parameters(), rows, Tensor<float>({2}, {1.0F, 257.0F}));
        FAIL() << "a label of 257 reached the bf16 plan";
    } catch (const FeedError& error) {
        EXPECT_THAT(error.what(), HasSubstr("argument 1 (indices) holds 257"));
        EXPECT_THAT(error.what(), HasSubstr("integers up to 256"));
    }
}

// The fraction of rows whose largest logit is their label.
double blob_accuracy(const FloatModel& model,
                     const Parameters<float>& parameters,
                     const ThreeBlobs& data) {
    const Function<float> predict(model.network,
                                  [&](const Value<float>& x) { return model.mlp.express(x); });
    const Tensor<float> logits = predict(parameters, data.rows);
    std::size_t right = 0;
    const std::size_t count = data.labels.elements();
    for (std::size_t i = 0; i < count; ++i) {
        std::size_t best = 0;
        for (std::size_t c = 1; c < 3; ++c) {
            best = logits.data()[i * 3 + c] > logits.data()[i * 3 + best] ? c : best;
        }
        right += best == static_cast<std::size_t>(data.labels.data()[i]) ? 1 : 0;
    }
    return static_cast<double>(right) / static_cast<double>(count);
}

TEST(MixedPrecision, TrainsWithAFloatMasterCopyAsWellAsFloatDoes) {
    const FloatModel model;
    const Function<float> loss = mixed_loss_of(model);
    const MixedPrecision<float> mixed(loss);
    const optim::Adam adam({.learning_rate = 0.02});
    Parameters<float> in_float = model.network.parameters();
    Parameters<float> master = model.network.parameters();
    auto float_state = adam.start(in_float);
    auto master_state = adam.start(master);
    const ThreeBlobs train = three_blobs(96, 5);
    const ThreeBlobs test = three_blobs(300, 6);
    const Tensor<float> first = mixed(master, train.rows, train.labels);
    for (int step = 0; step < 60; ++step) {
        adam.step_in_place(in_float,
                           loss.value_and_gradients(in_float, train.rows, train.labels).gradients,
                           float_state);
        adam.step_in_place(master,
                           mixed.value_and_gradients(master, train.rows, train.labels).gradients,
                           master_state);
    }
    const float last = mixed(master, train.rows, train.labels).scalar();
    EXPECT_LT(last, first.scalar() / 4) << "the mixed-precision loss barely fell";
    const double float_accuracy = blob_accuracy(model, in_float, test);
    const double mixed_accuracy = blob_accuracy(model, master, test);
    EXPECT_GT(float_accuracy, 0.9);
    EXPECT_NEAR(mixed_accuracy, float_accuracy, 0.02);
}

}  // namespace
}  // namespace topos
