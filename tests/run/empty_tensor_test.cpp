// Tensors with an axis of extent 0 work as in numpy: they broadcast (an extent
// of 1 stretches to 0), flow through products, modules, reductions and
// compositions, and every posture (the interpreter, a plan, the reverse scan,
// recorded gradients) gives the same bits. A reduction over no elements gives
// its operation's identity: -0 for a sum (docs/guide/recording.md says why), -inf
// for a max, NaN for a mean (0 / 0).
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;

Tensor<double> filled(const Shape& shape, double value) {
    return Tensor<double>::filled(shape, value);
}

// The numpy rule, shape by shape: each case is (a, b, a op b).
struct BroadcastCase {
    Shape a;
    Shape b;
    Shape result;
};

TEST(EmptyTensor, BinaryOperationsBroadcastAZeroExtentLikeNumpy) {
    const std::vector<BroadcastCase> cases = {
        {{0, 3}, {}, {0, 3}},
        {{0, 3}, {3}, {0, 3}},
        {{3}, {0, 3}, {0, 3}},
        {{0, 1}, {1, 3}, {0, 3}},
        {{0, 3}, {1, 3}, {0, 3}},
        {{2, 0}, {2, 1}, {2, 0}},
        {{1}, {0}, {0}},
        {{0}, {0}, {0}},
    };
    for (const BroadcastCase& c : cases) {
        Tape<double> tape;
        const auto a = tape.input(filled(c.a, 1.0));
        const auto b = tape.parameter(filled(c.b, 2.0));
        const auto sum = a + b;
        const auto product = b * a;
        EXPECT_EQ(sum.shape(), c.result) << c.a << " + " << c.b;
        EXPECT_EQ(product.shape(), c.result) << c.b << " * " << c.a;
        const Symbol sum_symbol = sum;
        const Network<double> network = std::move(tape).into_network();
        EXPECT_EQ(network.forward(network.parameters()).of(sum_symbol).shape(), c.result);
    }
}

TEST(EmptyTensor, ScalarsBroadcastOverAnEmptyValue) {
    Tape<double> tape;
    const auto x = tape.input(filled({0, 3}, 1.0));
    EXPECT_EQ((x * 2.0).shape(), (Shape{0, 3}));
    EXPECT_EQ((1.0 - x).shape(), (Shape{0, 3}));
}

TEST(EmptyTensor, ShapesThatConflictStillFailAsInNumpy) {
    Tape<double> tape;
    const auto empty = tape.input(filled({0, 3}, 1.0));
    EXPECT_THROW((void)(empty + tape.input(filled({2, 3}, 1.0))), ShapeError);
    EXPECT_THROW((void)(empty + tape.input(filled({0, 2}, 1.0))), ShapeError);
}

TEST(EmptyTensor, BroadcastToStretchesAnExtentOfOneToZeroButNeverBack) {
    Tape<double> tape;
    const auto row = tape.input(filled({1, 3}, 1.0));
    EXPECT_EQ(row.broadcast_to({0, 3}).shape(), (Shape{0, 3}));
    EXPECT_EQ(row.broadcast_to({4, 0, 3}).shape(), (Shape{4, 0, 3}));
    const auto empty = tape.input(filled({0, 3}, 1.0));
    EXPECT_THROW((void)empty.broadcast_to({1, 3}), ShapeError);
    EXPECT_THROW((void)tape.input(filled({2, 3}, 1.0)).broadcast_to({0, 3}), ShapeError);
}

// Reads `symbols` from the interpreter and from a plan of `roots`, and expects
// the same bits.
void expect_plan_matches_interpreter(const Network<double>& network,
                                     const std::vector<Symbol>& roots,
                                     const std::vector<Symbol>& symbols) {
    const auto parameters = network.parameters();
    const topos::Run<double> oracle = network.forward(parameters, {});
    const topos::Run<double> planned =
        network.entry(roots).observe(symbols).lower().forward(parameters, {});
    for (const Symbol symbol : symbols) {
        EXPECT_TRUE(planned.of(symbol).bit_equal(oracle.of(symbol)))
            << "node " << symbol.index() << ": plan " << planned.of(symbol) << " vs interpreter "
            << oracle.of(symbol);
    }
}

TEST(EmptyTensor, ReductionsOverNoElementsGiveTheirIdentities) {
    Tape<double> tape;
    const auto x = tape.input(filled({0, 3}, 1.0));
    const Symbol sum = x.sum();
    const Symbol column_sums = x.sum(0);
    const Symbol column_maxima = x.max(0);
    const Symbol mean = x.mean();
    const Symbol row_sums = x.sum(1);
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters(), {});

    EXPECT_EQ(run.of(sum).scalar(), 0.0);
    EXPECT_TRUE(std::signbit(run.of(sum).scalar()));
    EXPECT_TRUE(run.of(column_sums).bit_equal(filled({3}, -0.0)));
    EXPECT_TRUE(
        run.of(column_maxima).bit_equal(filled({3}, -std::numeric_limits<double>::infinity())));
    EXPECT_TRUE(std::isnan(run.of(mean).scalar()));
    EXPECT_EQ(run.of(row_sums).shape(), (Shape{0}));
    expect_plan_matches_interpreter(network,
                                    {sum, column_sums, column_maxima, mean, row_sums},
                                    {sum, column_sums, column_maxima, row_sums});
}

// An empty result is written without a loop over its operands' other axes,
// which may be huge beside the 0: summing [2^47, 0] along its first axis once
// walked 2^47 empty rows. Index rows still run, to refuse bad indices.
TEST(EmptyTensor, AnEmptyResultBesideAHugeAxisIsWrittenAtOnce) {
    Tape<double> tape;
    const auto x = tape.input(filled({std::size_t{1} << 47, 0}, 1.0));
    const Symbol column_sums = x.sum(0);
    const Symbol column_maxima = x.max(0);
    const Symbol normalised = x.log_softmax(0);
    const Symbol pooled = tape.input(filled({0, 1, std::size_t{1} << 40, 4}, 1.0)).sum(2);
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters(), {});
    EXPECT_EQ(run.of(column_sums).shape(), (Shape{0}));
    EXPECT_EQ(run.of(column_maxima).shape(), (Shape{0}));
    EXPECT_EQ(run.of(normalised).shape(), (Shape{std::size_t{1} << 47, 0}));
    EXPECT_EQ(run.of(pooled).shape(), (Shape{0, 1, 4}));
    expect_plan_matches_interpreter(
        network, {column_sums, column_maxima, normalised, pooled}, {column_sums, pooled});
}

// An elected pattern with an empty result runs no kernel either: the window
// product's scratch tile holds a row of C*KH*KW taps, 2^25 * 3 here.
TEST(EmptyTensor, AnElectedConvolutionWithAnEmptyResultAllocatesNothing) {
    Tape<double> tape;
    const std::size_t tall = std::size_t{1} << 24;
    const auto image = tape.input(filled({0, 2, tall, 3}, 1.0));
    const auto filters = tape.parameter(filled({0, 2, tall, 3}, 1.0));
    const auto bias = tape.parameter(filled({0}, 1.0));
    const Symbol convolved = conv2d(image, filters, bias);
    const Network<double> network = std::move(tape).into_network();
    const Plan<double> plan = network.entry({convolved}).lower();
    EXPECT_EQ(plan.forward(network.parameters(), {}).of(convolved).shape(), (Shape{0, 0, 1, 1}));
    expect_plan_matches_interpreter(network, {convolved}, {convolved});
}

TEST(EmptyTensor, ABadIndexIsRefusedEvenWhenItsRowsAreEmpty) {
    auto [network, picks, rows] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> table = tape.parameter(filled({3, 0}, 1.0));
        const Value<double> picks = tape.indices(Tensor<double>({1}, {0}));
        return detach(picks, gather(table, picks));
    });
    const auto parameters = network.parameters();
    EXPECT_EQ(network.forward(parameters, {}).of(rows).shape(), (Shape{1, 0}));
    const Tensor<double> bad({1}, {7});
    EXPECT_THROW((void)network.forward(parameters, {{picks, bad}}), IndexError);
    EXPECT_THROW((void)network.entry({rows}).lower().forward(parameters, {{picks, bad}}),
                 IndexError);
}

// An MLP trained on an empty batch: forward, the plan, the reverse scan and the
// recorded gradients all run, agree bit for bit, and every gradient is zero
// (as finite differences of a loss that is constantly 0 say).
TEST(EmptyTensor, ALinearLayerOnAnEmptyBatchRunsInEveryPosture) {
    Tape<double> tape;
    const Linear<double> layer(tape, 4, 2, init::xavier(3));
    const auto x = tape.input(filled({0, 4}, 1.0));
    const auto y = layer.express(x).tanh();
    const auto loss = (y * y).sum();
    EXPECT_EQ(y.shape(), (Shape{0, 2}));
    const Adjoints<double> adjoints = tape.differentiate(loss, layer.parameters());
    const Symbol loss_symbol = loss;
    const Symbol weight = layer.weight();
    const Symbol bias = layer.bias();
    const Network<double> network = std::move(tape).into_network();
    const auto parameters = network.parameters();

    const topos::Run<double> oracle = network.forward(parameters, {});
    EXPECT_EQ(oracle.of(loss_symbol).scalar(), 0.0);
    const Field<double> scanned = oracle.backward(loss_symbol);
    EXPECT_TRUE(scanned.of(weight) == filled({4, 2}, 0.0));
    EXPECT_TRUE(scanned.of(bias) == filled({2}, 0.0));

    const topos::Run<double> planned =
        network.entry({loss_symbol}).backward().lower().forward(parameters, {});
    EXPECT_TRUE(planned.of(loss_symbol).bit_equal(oracle.of(loss_symbol)));
    EXPECT_TRUE(planned.backward(loss_symbol).of(weight).bit_equal(scanned.of(weight)));
    EXPECT_TRUE(planned.backward(loss_symbol).of(bias).bit_equal(scanned.of(bias)));

    const Plan<double> training = network.entry(adjoints.roots()).lower();
    const Parameters<double> recorded =
        training.forward(parameters, {}).recorded_gradients(adjoints);
    const Parameters<double> interpreted = oracle.recorded_gradients(adjoints);
    for (std::size_t slot = 0; slot < recorded.size(); ++slot) {
        EXPECT_TRUE(recorded.values()[slot].bit_equal(interpreted.values()[slot]));
        EXPECT_TRUE(recorded.values()[slot] ==
                    Tensor<double>::filled(recorded.values()[slot].shape(), 0.0));
    }
}

TEST(EmptyTensor, ProductsOverAnEmptyContractionAreZero) {
    Tape<double> tape;
    const auto a = tape.input(filled({2, 3, 0}, 1.0));
    const auto b = tape.parameter(filled({0, 2}, 1.0));
    const auto rows = tape.input(filled({0, 3}, 1.0));
    const auto c = tape.parameter(filled({3, 5}, 1.0));
    const Symbol contracted = a.matmul(b);
    const Symbol no_rows = rows.matmul(c);
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters(), {});
    EXPECT_TRUE(run.of(contracted) == filled({2, 3, 2}, 0.0));
    EXPECT_EQ(run.of(no_rows).shape(), (Shape{0, 5}));
    expect_plan_matches_interpreter(network, {contracted, no_rows}, {contracted, no_rows});
}

TEST(EmptyTensor, ConvolutionPoolingAndBatchNormRunOnAnEmptyBatch) {
    Tape<double> tape;
    const auto images = tape.input(filled({0, 1, 6, 6}, 1.0));
    const auto filters = tape.parameter(filled({2, 1, 3, 3}, 0.5));
    const auto bias = tape.parameter(filled({2}, 0.25));
    const auto features = conv2d(images, filters, bias, 1, 1);
    const auto pooled = max_pool(features, 2, 2);
    const auto averaged = average_pool(features, 2, 2);
    const auto normalised =
        batch_norm_training(
            pooled, tape.parameter(filled({2}, 1.0)), tape.parameter(filled({2}, 0.0)))
            .output;
    EXPECT_EQ(features.shape(), (Shape{0, 2, 6, 6}));
    EXPECT_EQ(pooled.shape(), (Shape{0, 2, 3, 3}));
    EXPECT_EQ(averaged.shape(), (Shape{0, 2, 3, 3}));
    EXPECT_EQ(normalised.shape(), (Shape{0, 2, 3, 3}));
    const Symbol loss = normalised.sum() + averaged.sum();
    const std::vector<Symbol> observed = {features, pooled, averaged, normalised, loss};
    const Network<double> network = std::move(tape).into_network();
    expect_plan_matches_interpreter(network, {loss}, observed);
}

TEST(EmptyTensor, LayoutOperationsKeepOrMakeEmptyAxes) {
    Tape<double> tape;
    const auto x = tape.input(filled({0, 4}, 1.0));
    const auto full = tape.input(filled({2, 4}, 1.0));
    EXPECT_EQ(x.transpose().shape(), (Shape{4, 0}));
    EXPECT_EQ(x.reshape({4, 0, 1}).shape(), (Shape{4, 0, 1}));
    EXPECT_EQ(concat(std::vector{x, full}, 0).shape(), (Shape{2, 4}));
    EXPECT_EQ(full.narrow(0, 1, 0).shape(), (Shape{0, 4}));
    EXPECT_EQ(full.slice(1, 2, 2).shape(), (Shape{2, 0}));
    EXPECT_EQ(x.pad(0, 1, 1).shape(), (Shape{2, 4}));
    const Symbol joined = concat(std::vector{x, full}, 0);
    const Symbol padded = x.pad(0, 1, 1);
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters(), {});
    EXPECT_TRUE(run.of(joined) == filled({2, 4}, 1.0));
    EXPECT_TRUE(run.of(padded) == filled({2, 4}, 0.0));
    expect_plan_matches_interpreter(network, {joined, padded}, {joined, padded});
}

TEST(EmptyTensor, AnEmptyFeedReplacesAnEmptyInput) {
    Tape<double> tape;
    const auto x = tape.input(filled({0, 3}, 1.0));
    const Symbol x_symbol = x;
    const Symbol total = (x * 2.0).sum();
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.entry({total}).lower().forward(
        network.parameters(), {{x_symbol, filled({0, 3}, 5.0)}});
    EXPECT_EQ(run.of(total).scalar(), 0.0);
    try {
        (void)network.forward(network.parameters(), {{x_symbol, filled({1, 3}, 5.0)}});
        FAIL() << "a feed of another shape was accepted";
    } catch (const FeedError& error) {
        EXPECT_THAT(error.what(), HasSubstr("[0, 3]"));
    }
}

}  // namespace
}  // namespace topos
