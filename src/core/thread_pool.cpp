// The thread pool: one region at a time, inline when busy or nested.
#include "core/thread_pool.hpp"

#include <topos/core/threads.hpp>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace topos::detail {
namespace {

// True on a pool worker, and on a caller while its region runs.
thread_local bool inside_region = false;

// Waits up to about 50 microseconds for `ready()` without sleeping. Waking a
// thread that sleeps on a condition variable takes tens of microseconds on a
// virtual machine, and a plan starts a region per k block of every product:
// workers that spin briefly after a region catch the next one at once, and the
// caller that spins catches the end of its own. Bounded, so idle workers sleep.
template <class Ready>
void spin_until(Ready ready) {
    for (int i = 0; i < 4096; ++i) {
        if (ready()) {
            return;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (i % 256 == 255) {
            std::this_thread::yield();
        }
    }
}

std::size_t hardware_thread_count() {
    const unsigned count = std::thread::hardware_concurrency();
    return count == 0 ? 1 : count;
}

}  // namespace

ThreadPool& ThreadPool::instance() {
    static ThreadPool pool(default_thread_count());
    return pool;
}

std::size_t ThreadPool::default_thread_count() {
    const char* text = std::getenv("TOPOS_THREADS");
    if (text != nullptr) {
        std::size_t count = 0;
        const char* end = text + std::strlen(text);
        const auto [stop, error] = std::from_chars(text, end, count);
        if (error == std::errc{} && stop == end && count > 0) {
            return count;
        }
    }
    return hardware_thread_count();
}

ThreadPool::ThreadPool(std::size_t threads) {
    start_workers(threads > 0 ? threads - 1 : 0);
}

ThreadPool::~ThreadPool() {
    const std::lock_guard region(region_);
    stop_workers();
}

std::size_t ThreadPool::thread_count() const {
    const std::lock_guard state(state_);
    return workers_.size() + 1;
}

void ThreadPool::resize(std::size_t threads) {
    const std::lock_guard region(region_);
    stop_workers();
    start_workers(threads > 0 ? threads - 1 : 0);
}

void ThreadPool::start_workers(std::size_t workers) {
    const std::lock_guard state(state_);
    stopping_ = false;
    for (std::size_t i = 0; threads_available && i < workers; ++i) {
        workers_.emplace_back([this, seen = generation_.load()] { work(seen); });
    }
}

void ThreadPool::stop_workers() {
    std::vector<std::thread> leaving;
    {
        const std::lock_guard state(state_);
        stopping_ = true;
        leaving.swap(workers_);
    }
    wake_.notify_all();
    for (std::thread& worker : leaving) {
        worker.join();
    }
}

void ThreadPool::run_tasks(std::size_t count, TaskRef task) {
    const bool alone = count <= 1 || inside_region || !region_.try_lock();
    if (alone) {
        for (std::size_t i = 0; i < count; ++i) {
            task(i);
        }
        return;
    }
    const std::lock_guard region(region_, std::adopt_lock);
    {
        const std::lock_guard state(state_);
        task_ = task;
        std::fegetenv(&environment_);
        count_ = count;
        next_.store(0, std::memory_order_relaxed);
        open_ = true;
        ++generation_;
    }
    wake_.notify_all();
    inside_region = true;
    take_tasks();
    inside_region = false;
    // Every task has been taken: a worker that has not joined yet (still
    // waking) finds the region closed and never touches it, so the caller
    // waits only for the workers running a task.
    {
        const std::lock_guard state(state_);
        open_ = false;
    }
    spin_until([this] { return workers_in_region_.load(std::memory_order_acquire) == 0; });
    std::unique_lock state(state_);
    done_.wait(state, [this] { return workers_in_region_ == 0; });
}

void ThreadPool::take_tasks() {
    for (std::size_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
         i = next_.fetch_add(1, std::memory_order_relaxed)) {
        task_(i);
    }
}

void ThreadPool::take_tasks_in_callers_environment() {
    std::fenv_t own;
    std::fegetenv(&own);
    std::fesetenv(&environment_);
    take_tasks();
    std::fesetenv(&own);
}

void ThreadPool::work(std::uint64_t seen_generation) {
    inside_region = true;
    std::unique_lock state(state_);
    while (true) {
        state.unlock();
        spin_until([&] { return generation_.load(std::memory_order_acquire) != seen_generation; });
        state.lock();
        wake_.wait(state, [&] { return stopping_ || generation_ != seen_generation; });
        if (stopping_) {
            return;
        }
        seen_generation = generation_;
        if (!open_) {
            continue;
        }
        ++workers_in_region_;
        state.unlock();
        take_tasks_in_callers_environment();
        state.lock();
        if (--workers_in_region_ == 0) {
            done_.notify_one();
        }
    }
}

}  // namespace topos::detail

namespace topos {

std::size_t threads() {
    return detail::ThreadPool::instance().thread_count();
}

void set_threads(std::size_t count) {
    const std::size_t wanted = count > 0 ? count : detail::ThreadPool::default_thread_count();
    detail::ThreadPool::instance().resize(wanted);
}

}  // namespace topos
