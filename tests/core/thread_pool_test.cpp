// The library's thread pool: every task runs once; a region inside a region,
// and a region that finds the pool busy, run inline on their caller's thread;
// set_threads and TOPOS_THREADS decide the thread count.
#include "core/thread_pool.hpp"

#include <topos/core/threads.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cfenv>
#include <cstdlib>
#include <latch>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace topos {
namespace {

using detail::ThreadPool;

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
    ThreadPool pool(3);
    std::vector<std::atomic<int>> runs(1000);
    pool.run(runs.size(), [&](std::size_t task) { ++runs[task]; });
    for (std::size_t task = 0; task < runs.size(); ++task) {
        EXPECT_EQ(runs[task].load(), 1) << "task " << task;
    }
}

TEST(ThreadPool, RunsARegionInsideARegionOnTheCallingThread) {
    ThreadPool pool(3);
    std::atomic<int> inner_tasks_elsewhere{0};
    std::atomic<int> inner_tasks{0};
    pool.run(8, [&](std::size_t) {
        const std::thread::id outer = std::this_thread::get_id();
        pool.run(5, [&](std::size_t) {
            ++inner_tasks;
            if (std::this_thread::get_id() != outer) {
                ++inner_tasks_elsewhere;
            }
        });
    });
    EXPECT_EQ(inner_tasks.load(), 40);
    EXPECT_EQ(inner_tasks_elsewhere.load(), 0);
}

TEST(ThreadPool, RunsInlineWhenAnotherThreadsRegionHoldsIt) {
    ThreadPool pool(2);
    std::latch region_started(1);
    std::latch release(1);
    std::thread owner([&] {
        pool.run(2, [&](std::size_t task) {
            if (task == 0) {
                region_started.count_down();
                release.wait();
            }
        });
    });
    region_started.wait();  // the owner's region holds the pool until release
    std::set<std::thread::id> runners;
    pool.run(6, [&](std::size_t) { runners.insert(std::this_thread::get_id()); });
    release.count_down();
    owner.join();
    EXPECT_EQ(runners, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ThreadPool, UsesItsWorkersWhenFree) {
    ThreadPool pool(2);
    // Task 0 waits until another thread has run task 1, which only a worker can.
    std::latch other_task_ran(1);
    pool.run(2, [&](std::size_t task) {
        if (task == 1) {
            other_task_ran.count_down();
        } else {
            other_task_ran.wait();
        }
    });
    EXPECT_EQ(pool.thread_count(), 2u);
}

TEST(ThreadPool, RunsWorkersInTheCallersRoundingMode) {
    ThreadPool pool(2);
    ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
    std::latch worker_ran(1);
    int worker_rounding = -1;
    pool.run(2, [&](std::size_t task) {
        if (task == 1) {  // on the worker: task 0 holds the caller until this ran
            worker_rounding = std::fegetround();
            worker_ran.count_down();
        } else {
            worker_ran.wait();
        }
    });
    std::fesetround(FE_TONEAREST);
    EXPECT_EQ(worker_rounding, FE_UPWARD);
}

TEST(ThreadPool, ResizesBetweenRegions) {
    ThreadPool pool(1);
    EXPECT_EQ(pool.thread_count(), 1u);
    pool.resize(4);
    EXPECT_EQ(pool.thread_count(), 4u);
    std::atomic<int> runs{0};
    pool.run(100, [&](std::size_t) { ++runs; });
    EXPECT_EQ(runs.load(), 100);
    pool.resize(0);
    EXPECT_EQ(pool.thread_count(), 1u);
}

TEST(Threads, SetThreadsChangesTheCountAndZeroRestoresTheDefault) {
    set_threads(3);
    EXPECT_EQ(threads(), 3u);
    set_threads(1);
    EXPECT_EQ(threads(), 1u);
    set_threads(0);
    EXPECT_EQ(threads(), ThreadPool::default_thread_count());
}

TEST(Threads, DefaultComesFromTheEnvironmentWhenItHoldsACount) {
    const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    ASSERT_EQ(setenv("TOPOS_THREADS", "5", 1), 0);
    EXPECT_EQ(ThreadPool::default_thread_count(), 5u);
    for (const char* unusable : {"0", "-2", "three", "4x", ""}) {
        ASSERT_EQ(setenv("TOPOS_THREADS", unusable, 1), 0);
        EXPECT_EQ(ThreadPool::default_thread_count(), hardware) << "TOPOS_THREADS=" << unusable;
    }
    ASSERT_EQ(unsetenv("TOPOS_THREADS"), 0);
    EXPECT_EQ(ThreadPool::default_thread_count(), hardware);
}

}  // namespace
}  // namespace topos
