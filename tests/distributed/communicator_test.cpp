// The collectives, run under mpirun with 1 to 4 ranks (tests/distributed/
// CMakeLists.txt): their sums are taken in rank order, every rank gets the same
// bits, and ranks that disagree on what they pass all fail with a message; a
// step in micro-batches has the bits of one process without MPI, on any
// number of ranks; overlapping the sums with the backward pass, in buckets of
// any size, and a simulated network never change the bits.
#include <topos/distributed.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <vector>

namespace topos::distributed {
namespace {

// What rank `rank` contributes at element `i`: magnitudes far apart, so that
// another order of the additions gives other bits.
float contribution(int rank, std::size_t i) {
    const float scale = (rank % 2 == 0) ? 1e8F : 1.0F;
    return scale * init::uniform(static_cast<std::uint64_t>(rank), -1.0, 1.0)
                       .make<float>(Shape{i + 1})
                       .data()[i];
}

// Every rank's 64-bit word, gathered.
std::vector<std::uint64_t> gathered(const Communicator& world, std::uint64_t word) {
    std::vector<std::uint64_t> words(static_cast<std::size_t>(world.size()));
    MPI_Allgather(&word, 1, MPI_UINT64_T, words.data(), 1, MPI_UINT64_T, world.handle());
    return words;
}

template <Element T>
std::uint64_t digest_of(std::span<const T> values) {
    std::uint64_t digest = 14695981039346656037ull;
    for (const T value : values) {
        if constexpr (sizeof(T) == 4) {
            digest = (digest ^ std::bit_cast<std::uint32_t>(value)) * 1099511628211ull;
        } else {
            digest = (digest ^ std::bit_cast<std::uint64_t>(value)) * 1099511628211ull;
        }
    }
    return digest;
}

template <Element T>
std::uint64_t digest_of(const Parameters<T>& parameters) {
    std::uint64_t digest = 0;
    for (const Tensor<T>& value : parameters.values()) {
        digest = digest * 31 + digest_of(value.data());
    }
    return digest;
}

// Two parameter slots, [2, 3] and [3], in a sealed network.
Network<double> two_slot_network() {
    Tape<double> tape;
    const auto w = tape.parameter(init::uniform(1, -1.0, 1.0).make<double>(Shape{2, 3}));
    const auto b = tape.parameter(init::uniform(2, -1.0, 1.0).make<double>(Shape{3}));
    (void)(w.sum() + b.sum());
    return std::move(tape).into_network();
}

TEST(Communicator, TheWorldHoldsEveryRankOnce) {
    const Communicator world;
    ASSERT_GE(world.size(), 1);
    std::vector<std::uint64_t> ranks = gathered(world, static_cast<std::uint64_t>(world.rank()));
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        EXPECT_EQ(ranks[r], r);
    }
}

TEST(Communicator, AllReduceAddsTheRanksInRankOrderWithTheSameBitsEverywhere) {
    const Communicator world;
    constexpr std::size_t count = 1001;  // not a multiple of the ranks: uneven chunks
    std::vector<float> mine(count);
    for (std::size_t i = 0; i < count; ++i) {
        mine[i] = contribution(world.rank(), i);
    }
    const std::vector<float> summed = world.all_reduce(std::span<const float>(mine));
    ASSERT_EQ(summed.size(), count);
    for (std::size_t i = 0; i < count; ++i) {
        float expected = contribution(0, i);
        for (int r = 1; r < world.size(); ++r) {
            expected += contribution(r, i);
        }
        ASSERT_EQ(std::bit_cast<std::uint32_t>(summed[i]), std::bit_cast<std::uint32_t>(expected))
            << "element " << i << ": " << summed[i] << " against " << expected;
    }
    const std::vector<std::uint64_t> digests =
        gathered(world, digest_of(std::span<const float>(summed)));
    for (const std::uint64_t digest : digests) {
        EXPECT_EQ(digest, digests.front());
    }
}

TEST(Communicator, AllReduceReportsTheBytesARingWouldSend) {
    const Communicator world;
    const std::vector<double> ones(400, 1.0);
    const std::vector<double> summed = world.all_reduce(std::span<const double>(ones));
    EXPECT_EQ(summed.front(), static_cast<double>(world.size()));
    const auto ranks = static_cast<std::uint64_t>(world.size());
    // Each rank sends all but its own chunk once, then its chunk to every other rank.
    const std::uint64_t mine = 400 * (static_cast<std::uint64_t>(world.rank()) + 1) / ranks -
                               400 * static_cast<std::uint64_t>(world.rank()) / ranks;
    EXPECT_EQ(world.last_bytes_sent(), ((400 - mine) + mine * (ranks - 1)) * sizeof(double));
}

TEST(Communicator, AllReduceOfParametersSumsSlotBySlotAndKeepsTheirShapes) {
    const Communicator world;
    const Network<double> network = two_slot_network();
    const Parameters<double> parameters = network.parameters();
    const Parameters<double> summed = world.all_reduce(parameters);
    ASSERT_EQ(summed.values().size(), 2U);
    for (std::size_t slot = 0; slot < 2; ++slot) {
        const Tensor<double>& before = parameters.values()[slot];
        const Tensor<double>& after = summed.values()[slot];
        ASSERT_EQ(after.shape(), before.shape());
        for (std::size_t i = 0; i < before.elements(); ++i) {
            double expected = before.data()[i];
            for (int r = 1; r < world.size(); ++r) {
                expected += before.data()[i];
            }
            EXPECT_EQ(after.data()[i], expected);
        }
    }
}

TEST(Communicator, BroadcastGivesEveryRankTheRootsParameters) {
    const Communicator world;
    const Network<double> network = two_slot_network();
    const Parameters<double> recorded_parameters = network.parameters();
    for (const int root : {0, world.size() - 1}) {
        std::vector<Tensor<double>> own;
        for (const Tensor<double>& value : recorded_parameters.values()) {
            own.push_back(value + Tensor<double>(static_cast<double>(world.rank())));
        }
        const Parameters<double> received =
            world.broadcast(recorded_parameters.with_values(std::move(own)), root);
        for (std::size_t slot = 0; slot < 2; ++slot) {
            const Tensor<double>& recorded = recorded_parameters.values()[slot];
            for (std::size_t i = 0; i < recorded.elements(); ++i) {
                EXPECT_EQ(received.values()[slot].data()[i],
                          recorded.data()[i] + static_cast<double>(root));
            }
        }
    }
}

TEST(Communicator, RanksThatPassDifferentCountsAllThrowNamingEachCount) {
    const Communicator world;
    if (world.size() == 1) {
        GTEST_SKIP() << "needs two ranks or more";
    }
    const std::vector<float> values(static_cast<std::size_t>(world.rank()) + 1, 1.0F);
    try {
        (void)world.all_reduce(std::span<const float>(values));
        FAIL() << "all_reduce of different counts returned";
    } catch (const CommunicationError& error) {
        EXPECT_NE(std::string(error.what()).find("the ranks disagree on the number of elements"),
                  std::string::npos)
            << error.what();
        EXPECT_NE(std::string(error.what()).find("rank 1 has 2"), std::string::npos)
            << error.what();
    }
}

TEST(Communicator, RanksWithParametersOfOtherShapesAllThrowBeforeBroadcasting) {
    const Communicator world;
    if (world.size() == 1) {
        GTEST_SKIP() << "needs two ranks or more";
    }
    Tape<float> tape;
    (void)tape.parameter(Tensor<float>::filled(Shape{world.rank() == 0 ? 2U : 3U}, 1.0F));
    const Network<float> network = std::move(tape).into_network();
    EXPECT_THROW((void)world.broadcast(network.parameters()), CommunicationError);
}

TEST(Communicator, RanksThatNameDifferentRootsAllThrowBeforeBroadcasting) {
    const Communicator world;
    if (world.size() == 1) {
        GTEST_SKIP() << "needs two ranks or more";
    }
    const Network<double> network = two_slot_network();
    try {
        (void)world.broadcast(network.parameters(), world.rank() == 0 ? 0 : 1);
        FAIL() << "a broadcast with two roots returned";
    } catch (const CommunicationError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("the ranks disagree on the broadcast's root: rank 0 has rank 0; "),
                  std::string::npos)
            << message;
    }
}

TEST(Communicator, ADisagreementGroupsTheRanksByWhatTheyHold) {
    const Communicator world;
    if (world.size() != 3 && world.size() != 4) {
        GTEST_SKIP() << "written for three or four ranks";
    }
    const bool odd = world.rank() % 2 == 1;
    const Agreement agreement{"the colour", odd ? 1U : 2U, odd ? "red" : "blue"};
    const std::string expected =
        world.size() == 3
            ? "the ranks disagree on the colour: ranks 0 and 2 have blue; rank 1 has red"
            : "the ranks disagree on the colour: ranks 0 and 2 have blue; ranks 1 and 3 have red";
    try {
        world.check_agreement(std::span(&agreement, 1));
        FAIL() << "check_agreement returned";
    } catch (const CommunicationError& error) {
        EXPECT_EQ(std::string(error.what()), expected);
    }
}

TEST(Communicator, ABroadcastRootOutsideTheGroupIsRefused) {
    const Communicator world;
    const Network<double> network = two_slot_network();
    EXPECT_THROW((void)world.broadcast(network.parameters(), world.size()), CommunicationError);
    EXPECT_THROW((void)world.broadcast(network.parameters(), -1), CommunicationError);
}

TEST(Communicator, ASplitOfTheWorldSumsWithinItsOwnGroup) {
    const Communicator world;
    MPI_Comm halves = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_split(world.handle(), world.rank() % 2, world.rank(), &halves), MPI_SUCCESS);
    {
        const Communicator half(halves);
        const std::vector<double> rank{static_cast<double>(world.rank())};
        double expected = 0;
        for (int r = world.rank() % 2; r < world.size(); r += 2) {
            expected += r;
        }
        EXPECT_EQ(half.all_reduce(std::span<const double>(rank)).front(), expected);
        EXPECT_EQ(half.size(), (world.size() + 1 - world.rank() % 2) / 2);
    }
    MPI_Comm_free(&halves);
}

// A data-parallel step: a 4-5-3 MLP and cross-entropy, in double.
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

Tensor<double> labels_of(std::size_t rows) {
    std::vector<double> labels(rows);
    for (std::size_t i = 0; i < rows; ++i) {
        labels[i] = static_cast<double>((i * 7) % 3);
    }
    return Tensor<double>(Shape{rows}, labels);
}

// One global batch of 37 rows for the classifier: a share that differs by a
// row between ranks, whatever their number.
struct Batch {
    static constexpr std::size_t rows = 37;
    Classifier classifier;
    Tensor<double> x = init::normal(5, 1.0).make<double>(Shape{rows, 4});
    Tensor<double> y = labels_of(rows);
    Parameters<double> parameters = classifier.model.parameters();
};

TEST(DataParallel, ShardsCoverTheGlobalBatchInRankOrderAndDifferByARowAtMost) {
    const Communicator world;
    Classifier classifier;
    const DataParallel<double> parallel(world, classifier.loss);
    for (const std::size_t rows : {static_cast<std::size_t>(world.size()), 10UL, 61UL}) {
        const data::BatchRange mine = parallel.shard(rows);
        const std::vector<std::uint64_t> starts = gathered(world, mine.start);
        const std::vector<std::uint64_t> counts = gathered(world, mine.count);
        std::uint64_t next = 0;
        for (std::size_t r = 0; r < starts.size(); ++r) {
            EXPECT_EQ(starts[r], next);
            EXPECT_LE(counts.front() - counts[r], 1U);
            next += counts[r];
        }
        EXPECT_EQ(next, rows);
    }
}

TEST(DataParallel, TheStepMatchesOneProcessOnTheGlobalBatchAndIsTheSameOnEveryRank) {
    const Communicator world;
    const Batch batch;
    const auto& [classifier, x, y, parameters] = batch;
    const DataParallel<double> parallel(world, classifier.loss);

    const auto [value, gradients] = parallel.value_and_gradients(parameters, x, y);
    const auto [one_value, one_gradients] = classifier.loss.value_and_gradients(parameters, x, y);
    // Both are means of 37 row losses, added in another order and weighted by
    // n_r / 37 per rank: a few units in the last place of double.
    constexpr double tolerance = 1e-14;
    EXPECT_NEAR(value.item(), one_value.item(), tolerance * std::abs(one_value.item()));
    for (std::size_t slot = 0; slot < gradients.values().size(); ++slot) {
        const Tensor<double>& got = gradients.values()[slot];
        const Tensor<double>& want = one_gradients.values()[slot];
        ASSERT_EQ(got.shape(), want.shape());
        for (std::size_t i = 0; i < got.elements(); ++i) {
            EXPECT_NEAR(got.data()[i], want.data()[i], 1e-14 + tolerance * std::abs(want.data()[i]))
                << "slot " << slot << ", element " << i;
        }
    }
    if (world.size() == 1) {
        EXPECT_EQ(digest_of(gradients), digest_of(one_gradients));
    }
    const std::vector<std::uint64_t> digests =
        gathered(world, digest_of(gradients) ^ digest_of(value.data()));
    for (const std::uint64_t digest : digests) {
        EXPECT_EQ(digest, digests.front());
    }
    if (world.size() > 1) {
        EXPECT_GT(parallel.bytes_per_step(), 0U);
    }
}

TEST(DataParallel, RanksThatHoldGlobalBatchesOfOtherRowsAllThrowNamingEachBatch) {
    const Communicator world;
    if (world.size() == 1) {
        GTEST_SKIP() << "needs two ranks or more";
    }
    Classifier classifier;
    const DataParallel<double> parallel(world, classifier.loss);
    const std::size_t rows = world.rank() == 1 ? 59 : 60;
    const Tensor<double> x = init::normal(5, 1.0).make<double>(Shape{rows, 4});
    try {
        (void)parallel.value_and_gradients(classifier.model.parameters(), x, labels_of(rows));
        FAIL() << "a step over batches of 59 and 60 rows returned";
    } catch (const CommunicationError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("the ranks disagree on the global batch (every input's shape)"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("rank 1 has [59, 4], [59]"), std::string::npos) << message;
        EXPECT_NE(message.find("[60, 4], [60]"), std::string::npos) << message;
    }
}

TEST(DataParallel, AGlobalBatchWithFewerRowsThanRanksIsRefused) {
    const Communicator world;
    if (world.size() == 1) {
        GTEST_SKIP() << "needs two ranks or more";
    }
    Classifier classifier;
    const DataParallel<double> parallel(world, classifier.loss);
    const Tensor<double> x = Tensor<double>::filled(Shape{1, 4}, 0.5);
    try {
        (void)parallel.value_and_gradients(classifier.model.parameters(), x, labels_of(1));
        FAIL() << "a batch of one row was shared among " << world.size() << " ranks";
    } catch (const Error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("a global batch of 1 row cannot be shared among"), std::string::npos)
            << message;
        EXPECT_NE(message.find("data::LoaderOptions{.drop_last = true}"), std::string::npos)
            << message;
    }
}

// Micro-batch counts that divide the ranks' share evenly, unevenly, and leave
// ranks without a micro-batch: every one gives one process's bits.
TEST(DataParallel, AStepInMicroBatchesHasTheBitsOfOneProcessWithoutMpiOnEveryRankCount) {
    const Communicator world;
    const Batch batch;
    const auto& [classifier, x, y, parameters] = batch;
    const std::array inputs{x, y};
    for (const std::size_t micro_batches : {1UL, 2UL, 3UL, 5UL, 8UL}) {
        const DataParallel<double> parallel(
            world, classifier.loss, {.micro_batches = micro_batches});
        const auto [value, gradients] = parallel.value_and_gradients(parameters, x, y);
        const auto [alone_value, alone_gradients] = data::value_and_gradients_in_micro_batches(
            classifier.loss, parameters, std::span<const Tensor<double>>(inputs), micro_batches);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(value.item()),
                  std::bit_cast<std::uint64_t>(alone_value.item()))
            << micro_batches << " micro-batches";
        EXPECT_EQ(digest_of(gradients), digest_of(alone_gradients))
            << micro_batches << " micro-batches";
        const auto [one_value, one_gradients] =
            classifier.loss.value_and_gradients(parameters, x, y);
        EXPECT_NEAR(value.item(), one_value.item(), 1e-14 * std::abs(one_value.item()));
        const std::size_t held = parallel.options().micro_batches;
        EXPECT_EQ(held, micro_batches);
    }
}

TEST(DataParallel, ABatchWithFewerRowsThanMicroBatchesIsRefusedOnEveryRank) {
    const Communicator world;
    Classifier classifier;
    const DataParallel<double> parallel(world, classifier.loss, {.micro_batches = 8});
    const Tensor<double> x = Tensor<double>::filled(Shape{5, 4}, 0.5);
    try {
        (void)parallel.value_and_gradients(classifier.model.parameters(), x, labels_of(5));
        FAIL() << "a batch of 5 rows was cut into 8 micro-batches";
    } catch (const Error& error) {
        EXPECT_NE(
            std::string(error.what()).find("a batch of 5 rows cannot be cut into 8 micro-batches"),
            std::string::npos)
            << error.what();
    }
}

TEST(DataParallel, RanksThatCutIntoOtherMicroBatchCountsAllThrow) {
    const Communicator world;
    if (world.size() == 1) {
        GTEST_SKIP() << "needs two ranks or more";
    }
    Classifier classifier;
    const DataParallel<double> parallel(
        world, classifier.loss, {.micro_batches = world.rank() == 1 ? 4UL : 6UL});
    const Tensor<double> x = Tensor<double>::filled(Shape{12, 4}, 0.5);
    EXPECT_THROW(
        (void)parallel.value_and_gradients(classifier.model.parameters(), x, labels_of(12)),
        CommunicationError);
}

// Options that change when the sums' messages go out, never what is summed.
std::vector<DataParallelOptions> sending_options(std::size_t micro_batches) {
    return {{.micro_batches = micro_batches, .overlap = false},
            {.micro_batches = micro_batches, .overlap = true, .bucket_bytes = 0},
            {.micro_batches = micro_batches, .overlap = true, .bucket_bytes = 100},
            {.micro_batches = micro_batches}};
}

TEST(DataParallel, OverlapAndBucketSizesNeverChangeTheBits) {
    const Communicator world;
    const Batch batch;
    const auto& [classifier, x, y, parameters] = batch;
    for (const std::size_t micro_batches : {0UL, 5UL}) {
        std::vector<std::uint64_t> digests;
        for (const DataParallelOptions& options : sending_options(micro_batches)) {
            const DataParallel<double> parallel(world, classifier.loss, options);
            const auto [value, gradients] = parallel.value_and_gradients(parameters, x, y);
            digests.push_back(digest_of(gradients) ^ digest_of(value.data()));
        }
        for (const std::uint64_t digest : digests) {
            EXPECT_EQ(digest, digests.front()) << micro_batches << " micro-batches";
        }
        for (const std::uint64_t digest : gathered(world, digests.front())) {
            EXPECT_EQ(digest, digests.front()) << "another rank, " << micro_batches;
        }
    }
}

TEST(DataParallel, ByRankTheStepIsTheRankOrderSumOfEachRanksWeightedShard) {
    const Communicator world;
    const Batch batch;
    const auto& [classifier, x, y, parameters] = batch;
    const DataParallel<double> parallel(
        world, classifier.loss, {.overlap = true, .bucket_bytes = 100});
    const auto [value, gradients] = parallel.value_and_gradients(parameters, x, y);

    const data::BatchRange mine = parallel.shard(Batch::rows);
    const ValueAndGradients<double> shard = classifier.loss.value_and_gradients(
        parameters, x.narrow(0, mine.start, mine.count), y.narrow(0, mine.start, mine.count));
    const std::vector<double> weighted = data::weighted_flat(
        shard, static_cast<double>(mine.count) / static_cast<double>(Batch::rows));
    const std::vector<double> summed = world.all_reduce(std::span<const double>(weighted));
    const auto [want_value, want_gradients] =
        data::unflattened_step(parameters, std::span<const double>(summed));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(value.item()),
              std::bit_cast<std::uint64_t>(want_value.item()));
    EXPECT_EQ(digest_of(gradients), digest_of(want_gradients));
    // One bucket sends what one all-reduce of the buffer sends.
    const DataParallel<double> unbucketed(world, classifier.loss, {.overlap = false});
    (void)unbucketed.value_and_gradients(parameters, x, y);
    EXPECT_EQ(unbucketed.bytes_per_step(), world.last_bytes_sent());
}

TEST(DataParallel, ASimulatedLinkHoldsEachStepForItsMessagesAndKeepsTheBits) {
    const Communicator world;
    if (world.size() == 1) {
        GTEST_SKIP() << "needs two ranks or more";
    }
    Classifier classifier;
    constexpr std::size_t rows = 12;
    const Tensor<double> x = init::normal(5, 1.0).make<double>(Shape{rows, 4});
    const Tensor<double> y = labels_of(rows);
    const Parameters<double> parameters = classifier.model.parameters();
    constexpr double message_seconds = 0.01;
    const DataParallel<double> direct(world, classifier.loss, {.overlap = false});
    const DataParallel<double> delayed(
        world,
        classifier.loss,
        {.overlap = false,
         .simulated_link = SimulatedLink{.seconds_per_message = message_seconds}});
    const auto [value, gradients] = direct.value_and_gradients(parameters, x, y);
    world.barrier();
    const auto started = std::chrono::steady_clock::now();
    const auto [delayed_value, delayed_gradients] = delayed.value_and_gradients(parameters, x, y);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // Two phases, each waiting for a message from every other rank, the
    // first of which lands one message's time after its phase began.
    EXPECT_GE(seconds, 2 * message_seconds);
    EXPECT_EQ(digest_of(delayed_gradients), digest_of(gradients));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(delayed_value.item()),
              std::bit_cast<std::uint64_t>(value.item()));
}

}  // namespace
}  // namespace topos::distributed
