// topos::data: the generator and shuffling against their definitions written
// out with init::counter_bits, batches, datasets and their rows, the loader's
// epochs (each example once, in the documented order, the same with and
// without prefetching), and the progress line's format.
#include <topos/core/error.hpp>
#include <topos/data.hpp>
#include <topos/model/init.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace topos::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Generator, DrawsTheCounterBasedBitsInOrder) {
    Generator generator(42);
    for (std::uint64_t i = 0; i < 5; ++i) {
        EXPECT_EQ(generator.bits(), init::counter_bits(42, i));
    }
    EXPECT_EQ(generator.draws(), 5u);
    EXPECT_EQ(generator.below(7), init::counter_bits(42, 5) % 7);
    const double unit = generator.unit();
    EXPECT_EQ(unit, static_cast<double>(init::counter_bits(42, 6) >> 11) * 0x1p-53);
    EXPECT_GE(unit, 0.0);
    EXPECT_LT(unit, 1.0);
}

TEST(Shuffled, IsFisherYatesFromTheLastItemDown) {
    const std::size_t count = 50;
    std::vector<std::size_t> expected(count);
    std::iota(expected.begin(), expected.end(), std::size_t{0});
    std::uint64_t draw = 0;
    for (std::size_t i = count; i > 1; --i) {
        std::swap(expected[i - 1], expected[init::counter_bits(9, draw++) % i]);
    }
    EXPECT_EQ(shuffled(count, 9), expected);
    EXPECT_NE(shuffled(count, 10), expected);
    EXPECT_TRUE(shuffled(0, 1).empty());
    EXPECT_EQ(shuffled(1, 1), std::vector<std::size_t>{0});
}

TEST(Batches, CoverTheExamplesWithAShortLastBatchUnlessDropped) {
    EXPECT_EQ(batches(10, 3), (std::vector<BatchRange>{{0, 3}, {3, 3}, {6, 3}, {9, 1}}));
    EXPECT_EQ(batches(10, 3, {.drop_last = true}),
              (std::vector<BatchRange>{{0, 3}, {3, 3}, {6, 3}}));
    EXPECT_EQ(batches(9, 3, {.drop_last = true}).size(), 3u);
    EXPECT_TRUE(batches(0, 4).empty());
    EXPECT_EQ(batches(2, 5), (std::vector<BatchRange>{{0, 2}}));
    EXPECT_THAT([] { (void)batches(3, 0); },
                ::testing::ThrowsMessage<Error>(HasSubstr("batch size of at least 1")));
}

Tensor<double> numbered(const Shape& shape) {
    std::vector<double> values(shape.elements());
    std::iota(values.begin(), values.end(), 0.0);
    return Tensor<double>(shape, values);
}

TEST(Rows, PicksRowsAlongTheFirstAxisInTheOrderGiven) {
    const Tensor<double> table = numbered({4, 2, 3});
    const std::vector<std::size_t> positions{3, 0, 3};
    const Tensor<double> picked = rows(table, positions);
    ASSERT_EQ(picked.shape(), (Shape{3, 2, 3}));
    for (std::size_t i = 0; i < positions.size(); ++i) {
        for (std::size_t j = 0; j < 6; ++j) {
            EXPECT_EQ(picked.data()[i * 6 + j], table.data()[positions[i] * 6 + j]);
        }
    }
    EXPECT_EQ(rows(table, {}).shape(), (Shape{0, 2, 3}));
    EXPECT_THAT([&] { (void)rows(table, std::vector<std::size_t>{4}); },
                ::testing::ThrowsMessage<IndexError>(HasSubstr("row 4 of a [4, 2, 3] tensor")));
    EXPECT_THROW((void)rows(Tensor<double>(1.0), std::vector<std::size_t>{0}), ShapeError);
}

TEST(Dataset, NeedsTensorsThatShareTheirFirstAxis) {
    const Dataset<double> dataset({numbered({5, 2}), numbered({5})});
    EXPECT_EQ(dataset.size(), 5u);
    const std::vector<Tensor<double>> picked = dataset.rows(std::vector<std::size_t>{4, 1});
    EXPECT_EQ(picked[1], (Tensor<double>(Shape{2}, {4.0, 1.0})));
    EXPECT_THAT(
        [] {
            (void)Dataset<double>({numbered({5, 2}), numbered({4})});
        },
        ::testing::ThrowsMessage<ShapeError>(HasSubstr("tensor 1 is [4]")));
    EXPECT_THROW((void)Dataset<double>({}), ShapeError);
}

TEST(Dataset, SaysAScalarTensorLacksALeadingBatchAxisNamingItOnce) {
    const std::string expected =
        "tensor 1 of a dataset has shape [], a scalar: each tensor needs a leading batch axis, "
        "one row per example";
    EXPECT_THAT(
        [] {
            (void)Dataset<double>({numbered({3}), Tensor<double>(2.0)});
        },
        ::testing::ThrowsMessage<ShapeError>(
            AllOf(HasSubstr(expected), Not(HasSubstr("tensor 0")))));
    EXPECT_THAT([] { (void)Dataset<float>({Tensor<float>(1.0f)}); },
                ::testing::ThrowsMessage<ShapeError>(
                    HasSubstr("tensor 0 of a dataset has shape [], a scalar")));
}

std::vector<Batch<double>> every_batch(Epoch<double> epoch) {
    std::vector<Batch<double>> out;
    for (const Batch<double>& batch : epoch) {
        out.push_back(batch);
    }
    return out;
}

TEST(Loader, ServesEachExampleOnceAnEpochInTheDocumentedOrder) {
    const Dataset<double> dataset({numbered({23, 2}), numbered({23})});
    const Loader<double> loader(dataset, {.batch_size = 5, .seed = 3});
    EXPECT_EQ(loader.batches_per_epoch(), 5u);
    for (std::size_t epoch = 0; epoch < 3; ++epoch) {
        const std::vector<std::size_t> order = shuffled(23, init::counter_bits(3, epoch));
        EXPECT_EQ(loader.order(epoch), order);
        std::vector<std::size_t> seen;
        for (const Batch<double>& batch : every_batch(loader.epoch(epoch))) {
            EXPECT_EQ(batch.epoch, epoch);
            EXPECT_EQ(batch[0], rows(dataset[0], batch.positions));
            EXPECT_EQ(batch[1], rows(dataset[1], batch.positions));
            seen.insert(seen.end(), batch.positions.begin(), batch.positions.end());
        }
        EXPECT_EQ(seen, order);
    }
    EXPECT_NE(loader.order(0), loader.order(1));
}

TEST(Loader, GivesTheSameBatchesWithAndWithoutPrefetching) {
    const Dataset<double> dataset({numbered({17, 3})});
    const auto fetched = every_batch(Loader<double>(dataset, {.batch_size = 4}).epoch(2));
    const auto direct =
        every_batch(Loader<double>(dataset, {.batch_size = 4, .prefetch = false}).epoch(2));
    ASSERT_EQ(fetched.size(), direct.size());
    for (std::size_t i = 0; i < fetched.size(); ++i) {
        EXPECT_EQ(fetched[i].index, i);
        EXPECT_EQ(fetched[i].positions, direct[i].positions);
        EXPECT_EQ(fetched[i][0], direct[i][0]);
    }
    EXPECT_EQ(fetched.back().size(), 1u);
}

TEST(Loader, KeepsTheDatasetsOrderWithoutShufflingAndCanDropTheLastBatch) {
    const Loader<double> loader(Dataset<double>({numbered({7})}),
                                {.batch_size = 3, .shuffle = false, .drop_last = true});
    const auto served = every_batch(loader.epoch(0));
    ASSERT_EQ(served.size(), 2u);
    EXPECT_EQ(served[0].positions, (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(served[1].positions, (std::vector<std::size_t>{3, 4, 5}));
}

TEST(Loader, AnEpochMayMoveWhileItsNextBatchIsGathered) {
    const Loader<double> loader(Dataset<double>({numbered({9, 2})}), {.batch_size = 2});
    Epoch<double> first = loader.epoch(1);
    Epoch<double> moved = std::move(first);
    std::set<std::size_t> seen;
    while (const auto batch = moved.next()) {
        seen.insert(batch->positions.begin(), batch->positions.end());
    }
    EXPECT_EQ(seen.size(), 9u);
}

TEST(Progress, WritesPlainLinesEveryStepsAndTheLastToALog) {
    std::ostringstream log;
    Progress progress(25, {.every = 10, .out = &log, .in_place = false});
    for (std::size_t step = 0; step < 25; ++step) {
        progress.update(step, 1.0 / static_cast<double>(step + 1), 50);
    }
    std::vector<std::string> lines;
    std::istringstream in(log.str());
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_THAT(lines[0], ::testing::StartsWith("step  1/25  loss 1  "));
    EXPECT_THAT(lines[1], ::testing::StartsWith("step 11/25  loss 0.0909091  "));
    EXPECT_THAT(lines[3], ::testing::StartsWith("step 25/25  loss 0.04  "));
    EXPECT_THAT(lines[0], HasSubstr(" examples/s  "));
    EXPECT_THAT(lines[0], HasSubstr(" steps/s  "));
    EXPECT_THAT(lines[0], ::testing::EndsWith(" left"));
    EXPECT_THAT(lines[3], Not(HasSubstr("left")));
    EXPECT_EQ(progress.line(240, 0.840359, false), "step 241/25  loss 0.840359");
}

TEST(Progress, RewritesOneLineInPlaceOnATerminal) {
    std::ostringstream screen;
    Progress progress(3, {.out = &screen, .in_place = true});
    for (std::size_t step = 0; step < 3; ++step) {
        progress.update(step, 0.5);
    }
    progress.finish();
    const std::string text = screen.str();
    // The first and the last step; the second too if a tenth of a second passed.
    EXPECT_GE(std::count(text.begin(), text.end(), '\r'), 2);
    EXPECT_LE(std::count(text.begin(), text.end(), '\r'), 3);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
    EXPECT_THAT(text, HasSubstr("3 steps in "));
    EXPECT_THAT(text, Not(HasSubstr("examples/s")));
}

TEST(Progress, RedrawsInPlaceAtMostTenTimesASecond) {
    std::ostringstream screen;
    const auto started = std::chrono::steady_clock::now();
    Progress progress(20000, {.out = &screen, .in_place = true});
    for (std::size_t step = 0; step < 20000; ++step) {
        progress.update(step, 0.5);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string text = screen.str();
    const auto redraws = std::count(text.begin(), text.end(), '\r');
    // The first and the last step, and one redraw per tenth of a second.
    EXPECT_LE(static_cast<double>(redraws), 3 + seconds * 10) << seconds << " s";
    EXPECT_THAT(text, HasSubstr("step 20000/20000  loss 0.5"));
}

TEST(Progress, FinishDrawsTheLatestStepOfALoopThatEndsEarlyAndEndsItsLine) {
    std::ostringstream screen;
    Progress progress(100, {.out = &screen, .in_place = true});
    for (std::size_t step = 0; step < 50; ++step) {
        progress.update(step, 0.25);
    }
    progress.finish();
    const std::string text = screen.str();
    EXPECT_THAT(text, HasSubstr("\rstep  50/100  loss 0.25"));
    EXPECT_THAT(text, HasSubstr("\x1b[K\n50 steps in "));
}

TEST(Progress, TimesAShortLoopToThreeSignificantDigits) {
    std::ostringstream log;
    Progress progress(1, {.out = &log, .in_place = false});
    progress.update(0, 1.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    progress.finish();
    EXPECT_THAT(log.str(),
                ::testing::MatchesRegex(".*\n1 step in 0[.]0*[1-9][0-9][0-9] seconds\n"));
}

TEST(Progress, ALoopOfUnknownLengthCountsStepsWithoutATotal) {
    std::ostringstream log;
    Progress progress(0, {.out = &log, .in_place = false});
    for (std::size_t step = 0; step < 150; ++step) {
        progress.update(step, 2.0, 8);
    }
    std::vector<std::string> lines;
    std::istringstream in(log.str());
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_THAT(lines[0], ::testing::StartsWith("step 1  loss 2  "));
    EXPECT_THAT(lines[1], ::testing::StartsWith("step 101  loss 2  "));
    EXPECT_THAT(log.str(), AllOf(Not(HasSubstr("/0")), Not(HasSubstr("left"))));
}

TEST(Progress, WritesDurationsInTheLargestUnits) {
    EXPECT_EQ(duration_text(9.4), "9s");
    EXPECT_EQ(duration_text(65), "1m05s");
    EXPECT_EQ(duration_text(7380), "2h03m");
    EXPECT_EQ(duration_text(-1), "0s");
}

}  // namespace
}  // namespace topos::data
