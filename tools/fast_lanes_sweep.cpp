// Every float through the Fast numerics' transcendentals
// (kernels/fast_transcendental.hpp) against the exact functions: all 2^32 bit
// patterns, shared among the hardware threads. Prints, per function, the
// largest distance from the exact result in units in the last place and the
// input where it falls, how many results are NaN where the exact one is not
// (or the other way), how many blocks differ between the vector instruction
// sets (the claim is none), and the time per element of the fast and the exact lanes on one
// thread. Not run by CTest (minutes); docs/exact-math.md records its figures.
//
// usage: topos_fast_lanes_sweep [STEP [FUNCTION...]]
//   STEP > 1 visits every STEP-th pattern; FUNCTIONs (exp, tanh, sigmoid, erf,
//   gelu, log, softplus) limit the sweep to those, all of them by default.
#include "float_sweep.hpp"
#include "kernels/fast_transcendental.hpp"
#include <topos/core/isa.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using topos::Isa;
using topos::detail::ExactFunction;

using sweep::block;
using sweep::patterns;

std::uint32_t bits_of(float x) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
}

// Floats in order as integers: the distance of two is how many floats apart
// they are (+0 and -0 one apart).
std::int64_t ordered(float x) {
    const std::uint32_t bits = bits_of(x);
    const auto magnitude = static_cast<std::int64_t>(bits & 0x7fffffffU);
    return (bits & 0x80000000U) != 0 ? -magnitude - 1 : magnitude;
}

struct Tally {
    std::mutex worst_lock;
    std::int64_t worst = 0;
    std::uint32_t worst_input = 0;
    std::atomic<std::uint64_t> visited{0};
    std::atomic<std::uint64_t> nan_mismatch{0};
    std::atomic<std::uint64_t> sets_differ{0};
    std::atomic<std::int64_t> exact_ns{0};
    std::atomic<std::int64_t> fast_ns{0};
};

void sweep_share(const std::vector<Isa>& sets,
                 ExactFunction f,
                 std::uint64_t step,
                 unsigned share,
                 unsigned shares,
                 Tally& tally) {
    std::vector<float> x(block);
    std::vector<float> exact(block);
    std::vector<float> fast(block);
    std::vector<float> other(block);
    const std::uint64_t per_block = block * step;
    const Isa best = sets.back();
    std::int64_t worst = 0;
    std::uint32_t worst_input = 0;
    for (std::uint64_t first = share * per_block; first < patterns; first += shares * per_block) {
        const std::size_t count = sweep::fill_patterns(first, step, x);
        tally.exact_ns += sweep::nanoseconds_of(
            [&] { topos::detail::exact_map_on(best, f, x.data(), exact.data(), count); });
        tally.fast_ns += sweep::nanoseconds_of(
            [&] { topos::detail::fast_map_on(best, f, x.data(), fast.data(), count); });
        for (const Isa set : sets) {
            if (set == best) {
                continue;
            }
            topos::detail::fast_map_on(set, f, x.data(), other.data(), count);
            if (std::memcmp(other.data(), fast.data(), count * sizeof(float)) != 0) {
                ++tally.sets_differ;
            }
        }
        for (std::size_t i = 0; i < count; ++i) {
            if (std::isnan(exact[i]) || std::isnan(fast[i])) {
                tally.nan_mismatch += std::isnan(exact[i]) != std::isnan(fast[i]) ? 1 : 0;
                continue;
            }
            const std::int64_t distance = std::abs(ordered(exact[i]) - ordered(fast[i]));
            if (distance > worst) {
                worst = distance;
                worst_input = bits_of(x[i]);
            }
        }
        tally.visited += count;
    }
    const std::lock_guard lock(tally.worst_lock);
    if (worst > tally.worst) {
        tally.worst = worst;
        tally.worst_input = worst_input;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint64_t step =
        argc > 1 ? std::max<std::uint64_t>(1, std::strtoull(argv[1], nullptr, 10)) : 1;
    const unsigned shares = std::max(1U, std::thread::hardware_concurrency());
    // The vector sets: the portable loop (std::fma through libm on a baseline
    // build) is compared with them on a sample by tests/kernels/fast_lanes_test.cpp.
    std::vector<Isa> sets;
    for (const Isa set : topos::supported_isas()) {
        if (set != Isa::Portable) {
            sets.push_back(set);
        }
    }
    if (sets.empty()) {
        sets.push_back(Isa::Portable);
    }
    const std::vector<ExactFunction> functions = sweep::chosen_functions(argc, argv);
    if (functions.empty()) {
        std::fprintf(stderr, "no such function; the functions are%s\n", sweep::all_names().c_str());
        return 2;
    }
    std::printf("%s, on %u threads; times on %s\n",
                step == 1 ? "all 2^32 float bit patterns" : "a sample of the float bit patterns",
                shares,
                std::string(topos::name_of(sets.back())).c_str());
    int status = 0;
    for (const ExactFunction f : functions) {
        Tally tally;
        std::vector<std::thread> threads;
        for (unsigned share = 0; share < shares; ++share) {
            threads.emplace_back([&, share] { sweep_share(sets, f, step, share, shares, tally); });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        const double visited = static_cast<double>(tally.visited.load());
        float worst_input = 0;
        std::memcpy(&worst_input, &tally.worst_input, sizeof worst_input);
        std::printf(
            "%-8s %llu inputs: at most %lld ulp (at %a), %llu NaN mismatches, %llu blocks differ "
            "between sets; fast %.2f ns, exact %.2f ns an element\n",
            std::string(topos::detail::name_of(f)).c_str(),
            static_cast<unsigned long long>(tally.visited.load()),
            static_cast<long long>(tally.worst),
            static_cast<double>(worst_input),
            static_cast<unsigned long long>(tally.nan_mismatch.load()),
            static_cast<unsigned long long>(tally.sets_differ.load()),
            static_cast<double>(tally.fast_ns.load()) / visited,
            static_cast<double>(tally.exact_ns.load()) / visited);
        std::fflush(stdout);
        if (tally.nan_mismatch.load() != 0 || tally.sets_differ.load() != 0) {
            status = 1;
        }
    }
    return status;
}
