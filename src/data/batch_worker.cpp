// BatchWorker: a job queue served by one thread, started by the first job;
// Prefetcher's running average of how long a batch takes to gather.
#include "data/batch_worker.hpp"

#include <utility>

namespace topos::data::detail {

BatchWorker::~BatchWorker() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
        jobs_.clear();
    }
    wake_.notify_one();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void BatchWorker::run(std::function<void()> job) {
    bool wake = false;
    {
        const std::lock_guard lock(mutex_);
        if (!thread_.joinable()) {
            thread_ = std::thread([this] { serve(); });
        }
        jobs_.push_back(std::move(job));
        wake = sleeping_;
    }
    if (wake) {
        wake_.notify_one();
    }
}

void BatchWorker::serve() {
    std::unique_lock lock(mutex_);
    while (true) {
        while (jobs_.empty() && !stopping_) {
            sleeping_ = true;
            wake_.wait(lock);
            sleeping_ = false;
        }
        if (stopping_) {
            return;
        }
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        job();
        lock.lock();
    }
}

void Prefetcher::observe(std::chrono::nanoseconds took) {
    const std::int64_t now = took.count();
    const std::int64_t before = typical_nanoseconds.load(std::memory_order_relaxed);
    typical_nanoseconds.store(before < 0 ? now : (3 * before + now) / 4, std::memory_order_relaxed);
}

}  // namespace topos::data::detail
