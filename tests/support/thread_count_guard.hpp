// Restores the library's thread count when a test that changes it ends.
#pragma once

#include <topos/core/threads.hpp>

#include <cstddef>

namespace topos::test {

class ThreadCountGuard {
public:
    ThreadCountGuard() : saved_(threads()) {}

    ~ThreadCountGuard() { set_threads(saved_); }

    ThreadCountGuard(const ThreadCountGuard&) = delete;
    ThreadCountGuard& operator=(const ThreadCountGuard&) = delete;

private:
    std::size_t saved_;
};

}  // namespace topos::test
