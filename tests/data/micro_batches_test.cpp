// data::MicroBatches: the rows of each micro-batch, each holder's share, the
// tree's nodes covering a holder's micro-batches, the order the tree adds in,
// and a step in micro-batches against the step over the whole batch.
#include <topos/core/error.hpp>
#include <topos/data/micro_batches.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <vector>

namespace topos::data {
namespace {

TEST(MicroBatches, CutTheRowsInOrderTheFirstOnesOneRowLonger) {
    const MicroBatches cut(11, 4);
    EXPECT_EQ(cut.rows_of(0), (BatchRange{0, 3}));
    EXPECT_EQ(cut.rows_of(1), (BatchRange{3, 3}));
    EXPECT_EQ(cut.rows_of(2), (BatchRange{6, 3}));
    EXPECT_EQ(cut.rows_of(3), (BatchRange{9, 2}));
    EXPECT_EQ(cut.held_by(0, 3), (BatchRange{0, 2}));
    EXPECT_EQ(cut.held_by(2, 3), (BatchRange{3, 1}));
    EXPECT_EQ(cut.held_by(5, 6), (BatchRange{4, 0}));
}

TEST(MicroBatches, RefusesNoMicroBatchAndFewerRowsThanMicroBatches) {
    EXPECT_THROW(MicroBatches(10, 0), Error);
    EXPECT_THROW(MicroBatches(3, 4), Error);
}

TEST(MicroBatches, TheLargestWholeNodesCoverAHoldersMicroBatches) {
    const MicroBatches cut(64, 8);
    EXPECT_EQ(cut.covering({0, 8}), (std::vector<BatchRange>{{0, 8}}));
    EXPECT_EQ(cut.covering({0, 3}), (std::vector<BatchRange>{{0, 2}, {2, 1}}));
    EXPECT_EQ(cut.covering({3, 3}), (std::vector<BatchRange>{{3, 1}, {4, 2}}));
    EXPECT_EQ(cut.covering({6, 2}), (std::vector<BatchRange>{{6, 2}}));
    EXPECT_TRUE(cut.covering({4, 0}).empty());
    // However the micro-batches are shared, the nodes partition them.
    for (std::size_t holders = 1; holders <= 9; ++holders) {
        std::size_t next = 0;
        for (std::size_t h = 0; h < holders; ++h) {
            for (const BatchRange& node : cut.covering(cut.held_by(h, holders))) {
                EXPECT_EQ(node.start, next);
                next += node.count;
            }
        }
        EXPECT_EQ(next, 8U) << holders << " holders";
    }
}

TEST(MicroBatches, TheTreeAddsPowerOfTwoHalvesLeftThenRight) {
    // Five leaves whose sum depends on the order: the tree's
    // ((1e16 + 1) + (-1e16 + 1)) + 1 is 1 in double, a left-to-right sum 2.
    const std::array<std::vector<double>, 5> leaves{
        std::vector<double>{1e16}, {1.0}, {-1e16}, {1.0}, {1.0}};
    std::map<std::pair<std::size_t, std::size_t>, std::span<const double>> known;
    for (std::size_t m = 0; m < leaves.size(); ++m) {
        known.emplace(std::pair{m, std::size_t{1}}, leaves[m]);
    }
    const MicroBatches cut(5, 5);
    const double expected = ((1e16 + 1.0) + (-1e16 + 1.0)) + 1.0;
    EXPECT_EQ(tree_value(cut.root(), known).front(), expected);
    EXPECT_NE(expected, (((1e16 + 1.0) + -1e16) + 1.0) + 1.0);
    // The same from partial nodes, as a holder of micro-batches 0 to 2 and a
    // holder of 3 and 4 would give them.
    std::map<std::pair<std::size_t, std::size_t>, std::span<const double>> partial;
    const std::vector<double> first_two = tree_value<double>({0, 2}, known);
    partial.emplace(std::pair{std::size_t{0}, std::size_t{2}}, first_two);
    partial.emplace(std::pair{std::size_t{2}, std::size_t{1}}, leaves[2]);
    partial.emplace(std::pair{std::size_t{3}, std::size_t{1}}, leaves[3]);
    partial.emplace(std::pair{std::size_t{4}, std::size_t{1}}, leaves[4]);
    EXPECT_EQ(tree_value(cut.root(), partial).front(), expected);
    EXPECT_THROW((void)tree_value<double>(cut.root(), {}), Error);
}

TEST(MicroBatches, StreamingTheLeavesAddsInTheTreesOrder) {
    // Leaves far apart in magnitude, so that another order gives other bits.
    const auto leaf = [](std::size_t m) {
        return std::vector<double>{m % 3 == 0 ? 1e16 * (m % 2 == 0 ? 1.0 : -1.0)
                                              : static_cast<double>(m) + 0.5};
    };
    for (std::size_t count = 1; count <= 13; ++count) {
        std::vector<std::vector<double>> leaves;
        std::map<std::pair<std::size_t, std::size_t>, std::span<const double>> known;
        leaves.reserve(count);
        for (std::size_t m = 0; m < count; ++m) {
            leaves.push_back(leaf(m));
            known.emplace(std::pair{m, std::size_t{1}}, leaves.back());
        }
        for (const BatchRange node :
             {BatchRange{0, count}, BatchRange{count / 2, count - count / 2}}) {
            if (node.count == 0) {
                continue;
            }
            // A node of the tree rooted at its start (a covering node is one).
            std::map<std::pair<std::size_t, std::size_t>, std::span<const double>> shifted;
            for (std::size_t m = 0; m < node.count; ++m) {
                shifted.emplace(std::pair{m, std::size_t{1}}, leaves[node.start + m]);
            }
            const double streamed =
                streamed_tree_value<double>(node, [&](std::size_t m) { return leaves[m]; }).front();
            EXPECT_EQ(streamed, tree_value<double>({0, node.count}, shifted).front())
                << node.count << " micro-batches from " << node.start;
        }
    }
}

TEST(MicroBatches, ALastLeafFoldedInElementByElementGivesTheStreamedSum) {
    const auto leaf = [](std::size_t m) {
        return std::vector<double>{
            m % 3 == 0 ? 1e16 * (m % 2 == 0 ? 1.0 : -1.0) : static_cast<double>(m) + 0.5,
            static_cast<double>(m) * 0.1};
    };
    for (std::size_t count = 1; count <= 13; ++count) {
        StreamedTree<double> pushed;
        StreamedTree<double> all_but_last;
        for (std::size_t m = 0; m < count; ++m) {
            pushed.push(leaf(m));
            if (m + 1 < count) {
                all_but_last.push(leaf(m));
            }
        }
        const std::vector<double> last = leaf(count - 1);
        const std::vector<double> sum = std::move(pushed).sum();
        for (std::size_t i = 0; i < sum.size(); ++i) {
            EXPECT_EQ(std::bit_cast<std::uint64_t>(all_but_last.with_last(i, last[i])),
                      std::bit_cast<std::uint64_t>(sum[i]))
                << count << " micro-batches, element " << i;
        }
    }
}

struct Classifier {
    Tape<double> tape;
    Mlp<double> mlp{tape, {4, 5, 3}, Activation::Tanh, init::xavier(7)};
    Network<double> model = std::move(tape).into_network();
    Function<double> loss{model,
                          [this](const Value<double>& x, const Value<double>& y) {
                              return cross_entropy(mlp.express(x), y);
                          },
                          {Argument::Real, Argument::Indices}};
};

TEST(MicroBatchedStep, OneMicroBatchIsTheWholeBatchsStepBitForBit) {
    Classifier classifier;
    const Tensor<double> x = init::normal(5, 1.0).make<double>(Shape{12, 4});
    const Tensor<double> y(Shape{12}, std::vector<double>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2});
    const std::array inputs{x, y};
    const Parameters<double> parameters = classifier.model.parameters();
    const auto [value, gradients] = value_and_gradients_in_micro_batches(
        classifier.loss, parameters, std::span<const Tensor<double>>(inputs), 1);
    const auto [whole, whole_gradients] = classifier.loss.value_and_gradients(parameters, x, y);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(value.item()),
              std::bit_cast<std::uint64_t>(whole.item()));
    for (std::size_t slot = 0; slot < gradients.values().size(); ++slot) {
        EXPECT_EQ(gradients.values()[slot].to_vector(), whole_gradients.values()[slot].to_vector());
    }
}

TEST(MicroBatchedStep, ManyMicroBatchesGiveTheMeanOverTheWholeBatch) {
    Classifier classifier;
    const Tensor<double> x = init::normal(5, 1.0).make<double>(Shape{13, 4});
    std::vector<double> labels(13);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        labels[i] = static_cast<double>(i % 3);
    }
    const Tensor<double> y(Shape{13}, labels);
    const std::array inputs{x, y};
    const Parameters<double> parameters = classifier.model.parameters();
    const auto [value, gradients] = value_and_gradients_in_micro_batches(
        classifier.loss, parameters, std::span<const Tensor<double>>(inputs), 4);
    const auto [whole, whole_gradients] = classifier.loss.value_and_gradients(parameters, x, y);
    EXPECT_NEAR(value.item(), whole.item(), 1e-14);
    for (std::size_t slot = 0; slot < gradients.values().size(); ++slot) {
        const auto got = gradients.values()[slot].to_vector();
        const auto want = whole_gradients.values()[slot].to_vector();
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_NEAR(got[i], want[i], 1e-14) << "slot " << slot << ", element " << i;
        }
    }
    const Tensor<double> short_x = x.narrow(0, 0, 3);
    const std::array short_inputs{short_x, y.narrow(0, 0, 3)};
    EXPECT_THROW((void)value_and_gradients_in_micro_batches(
                     classifier.loss, parameters, std::span<const Tensor<double>>(short_inputs), 4),
                 Error);
}

}  // namespace
}  // namespace topos::data
