// The library's thread pool: runs the independent tasks of one parallel region
// on the calling thread plus threads() - 1 workers. It serves one region at a
// time. A caller that finds it busy, or that is itself inside a region (a
// worker, or a task calling back in), runs its tasks inline on its own thread,
// so many user threads forwarding at once never start more threads than
// themselves plus the pool's workers. Workers run a region's tasks in the
// caller's floating-point environment (rounding mode; on x86 also the MXCSR
// flush-to-zero bits), so which thread runs a task never changes what it
// computes.
#pragma once

#include <atomic>
#include <cfenv>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace topos::detail {

// Whether this build can start threads: not in WebAssembly built without
// pthreads (Emscripten without -pthread). There the pool has no workers, and
// every region runs on the calling thread, in the same order of tasks as with
// one thread, so the results are the same bits.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
inline constexpr bool threads_available = false;
#else
inline constexpr bool threads_available = true;
#endif

// A non-owning reference to a callable taking a task index (no allocation).
class TaskRef {
public:
    TaskRef() = default;

    template <class F>
    explicit TaskRef(F& task)
        : object_(&task),
          call_([](void* object, std::size_t index) { (*static_cast<F*>(object))(index); }) {}

    void operator()(std::size_t index) const { call_(object_, index); }

private:
    void* object_ = nullptr;
    void (*call_)(void*, std::size_t) = nullptr;
};

class ThreadPool {
public:
    // The one pool, created on first use with default_thread_count() threads.
    static ThreadPool& instance();

    // TOPOS_THREADS when it holds a positive integer, else the hardware's count.
    static std::size_t default_thread_count();

    explicit ThreadPool(std::size_t threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // Threads a region runs on: the caller and the workers.
    std::size_t thread_count() const;

    // Waits for the running region to end, then replaces the workers.
    void resize(std::size_t threads);

    // Calls task(i) once for every i in [0, count) and returns when all have
    // returned. Tasks must not throw. Runs inline (in ascending order) when the
    // pool is busy, has no workers, or the caller is inside a region.
    template <class F>
    void run(std::size_t count, F&& task) {
        run_tasks(count, TaskRef(task));
    }

private:
    void run_tasks(std::size_t count, TaskRef task);
    void start_workers(std::size_t workers);
    void stop_workers();
    void work(std::uint64_t seen_generation);
    void take_tasks();
    void take_tasks_in_callers_environment();

    std::mutex region_;  // held by the thread whose region runs on the pool
    mutable std::mutex state_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::vector<std::thread> workers_;
    // The running region: task_ and count_ are written under state_ before the
    // workers wake; next_ hands out task indices. A worker joins only while the
    // region is open_ (until the caller has taken the last task).
    TaskRef task_;
    std::fenv_t environment_{};
    std::size_t count_ = 0;
    std::atomic<std::size_t> next_ = 0;
    bool open_ = false;
    // Atomic so that a thread can spin on them before it sleeps on a condition
    // variable; they still change only under state_. workers_in_region_ counts
    // the workers that joined the region and have not left it.
    std::atomic<std::size_t> workers_in_region_ = 0;
    std::atomic<std::uint64_t> generation_ = 0;
    bool stopping_ = false;
};

}  // namespace topos::detail
