// data::Loader's prefetching: one persistent worker thread for every epoch,
// none for batches cheaper than waking one, the same batches at every
// prefetch depth as without prefetching, epochs dropped halfway, and the
// options it refuses.
#include <topos/core/error.hpp>
#include <topos/data.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <dirent.h>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace topos::data {
namespace {

// [rows, 3] holding 0, 1, 2, ... row by row.
Tensor<double> numbered(std::size_t rows) {
    std::vector<double> values(rows * 3);
    std::iota(values.begin(), values.end(), 0.0);
    return Tensor<double>(Shape{rows, 3}, values);
}

// The ids of this process's threads, read from /proc/self/task. A thread is
// started and joined first, so that helper threads a runtime starts with the
// first thread (ThreadSanitizer's) are already counted.
std::set<std::string> thread_ids() {
    static const bool runtime_started = [] {
        std::thread([] {}).join();
        return true;
    }();
    (void)runtime_started;
    std::set<std::string> ids;
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == nullptr) {
        return ids;
    }
    while (const dirent* entry = readdir(tasks)) {
        if (entry->d_name[0] != '.') {
            ids.insert(entry->d_name);
        }
    }
    closedir(tasks);
    return ids;
}

TEST(Loader, GathersEveryEpochOnOneWorkerThreadThatLivesAsLongAsTheLoader) {
    const std::set<std::string> before = thread_ids();
    if (before.empty()) {
        GTEST_SKIP() << "needs /proc/self/task";
    }
    std::set<std::string> started;
    {
        const Loader<double> loader(Dataset<double>({numbered(64)}),
                                    {.batch_size = 2, .gather_inline_below = {}});
        for (std::size_t epoch = 0; epoch < 3; ++epoch) {
            for (const Batch<double>& batch : loader.epoch(epoch)) {
                EXPECT_EQ(batch.size(), 2U);
                for (const std::string& id : thread_ids()) {
                    if (!before.contains(id)) {
                        started.insert(id);
                    }
                }
            }
        }
    }
    EXPECT_EQ(started.size(), 1U) << "96 batches were gathered on " << started.size() << " threads";
    EXPECT_EQ(thread_ids(), before) << "the worker outlived its loader";
}

TEST(Loader, GathersBatchesCheaperThanAThreadWhereTheyAreTaken) {
    const std::set<std::string> before = thread_ids();
    if (before.empty()) {
        GTEST_SKIP() << "needs /proc/self/task";
    }
    const Loader<double> loader(Dataset<double>({numbered(64)}),
                                {.batch_size = 2, .gather_inline_below = std::chrono::hours(1)});
    std::size_t rows = 0;
    for (std::size_t epoch = 0; epoch < 3; ++epoch) {
        for (const Batch<double>& batch : loader.epoch(epoch)) {
            rows += batch.size();
            EXPECT_EQ(thread_ids(), before) << "a thread started for a batch of " << batch.size();
        }
    }
    EXPECT_EQ(rows, 192U);
}

TEST(Loader, ServesTheSameBatchesAtEveryPrefetchDepth) {
    const Dataset<double> dataset({numbered(29)});
    std::vector<Batch<double>> direct;
    for (const Batch<double>& batch :
         Loader<double>(dataset, {.batch_size = 3, .seed = 5, .prefetch = false}).epoch(4)) {
        direct.push_back(batch);
    }
    for (const std::size_t depth : {1, 2, 3, 7, 100}) {
        const Loader<double> loader(dataset, {.batch_size = 3, .seed = 5, .prefetch_depth = depth});
        std::size_t index = 0;
        for (const Batch<double>& batch : loader.epoch(4)) {
            ASSERT_LT(index, direct.size());
            EXPECT_EQ(batch.index, index);
            EXPECT_EQ(batch.positions, direct[index].positions) << "depth " << depth;
            EXPECT_EQ(batch[0], direct[index][0]) << "depth " << depth;
            ++index;
        }
        EXPECT_EQ(index, direct.size()) << "depth " << depth;
    }
}

TEST(Loader, AnEpochDroppedHalfwayLeavesTheWorkerFreeForTheNext) {
    const Loader<double> loader(
        Dataset<double>({numbered(40)}),
        {.batch_size = 1, .shuffle = false, .prefetch_depth = 8, .gather_inline_below = {}});
    {
        Epoch<double> abandoned = loader.epoch(0);
        ASSERT_TRUE(abandoned.next().has_value());
    }
    std::size_t served = 0;
    for (const Batch<double>& batch : loader.epoch(1)) {
        EXPECT_EQ(batch.positions, std::vector<std::size_t>{served});
        ++served;
    }
    EXPECT_EQ(served, 40U);
}

TEST(Loader, AnEpochOutlivesItsLoader) {
    std::optional<Epoch<double>> epoch;
    {
        const Loader<double> loader(Dataset<double>({numbered(10)}),
                                    {.batch_size = 4, .gather_inline_below = {}});
        epoch.emplace(loader.epoch(0));
    }
    std::size_t rows = 0;
    while (const auto batch = epoch->next()) {
        rows += batch->size();
    }
    EXPECT_EQ(rows, 10U);
}

TEST(Loader, RefusesAPrefetchDepthOfZeroUnlessItDoesNotPrefetch) {
    const Dataset<double> dataset({numbered(4)});
    EXPECT_THROW((void)Loader<double>(dataset, {.prefetch_depth = 0}), Error);
    EXPECT_NO_THROW((void)Loader<double>(dataset, {.prefetch = false, .prefetch_depth = 0}));
}

}  // namespace
}  // namespace topos::data
