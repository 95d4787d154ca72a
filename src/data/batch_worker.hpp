// One persistent thread that runs jobs in the order they are given, for the
// Loader's prefetching: it starts with the first job, sleeps while it has
// none, and is woken only when it sleeps, so a busy worker costs its giver a
// lock and no system call.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace topos::data::detail {

class BatchWorker {
public:
    BatchWorker() = default;
    BatchWorker(const BatchWorker&) = delete;
    BatchWorker& operator=(const BatchWorker&) = delete;

    // Drops the jobs not started, lets the running one finish, and joins.
    ~BatchWorker();

    // Queues `job` behind the others; it must not throw.
    void run(std::function<void()> job);

private:
    void serve();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_;
    bool sleeping_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

// A Loader's prefetching: its worker, and how long gathering a batch takes,
// measured on every batch wherever it is gathered, so that batches too cheap
// to hand to a thread are gathered where they are taken.
// The worker is declared last, so it is stopped and joined first: a job it is
// running may still observe.
struct Prefetcher {
    std::atomic<std::int64_t> typical_nanoseconds{-1};
    BatchWorker worker;

    // Folds one gathering's duration into the running average (each new one
    // weighs a quarter). The worker and the caller may race and lose a sample,
    // which only delays the average.
    void observe(std::chrono::nanoseconds took);

    // The running average, or -1 before the first gathering.
    std::chrono::nanoseconds typical() const {
        return std::chrono::nanoseconds(typical_nanoseconds.load(std::memory_order_relaxed));
    }
};

}  // namespace topos::data::detail
