// Every float through the vector lanes of the exact functions
// (kernels/transcendental.hpp), against the scalar functions: all 2^32 bit
// patterns, on each vector instruction set this processor runs, shared among
// the hardware threads. Prints, per function and set, how many results differ
// (the claim is none) and the time per element of each path on one thread.
// Not run by CTest (minutes); docs/exact-math.md records its figures.
//
// usage: topos_exact_lanes_sweep [STEP [FUNCTION...]]
//   STEP > 1 visits every STEP-th pattern; FUNCTIONs (exp, tanh, sigmoid, erf,
//   gelu, log, softplus) limit the sweep to those, all of them by default.
#include "float_sweep.hpp"
#include "kernels/transcendental.hpp"
#include <topos/core/isa.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

using topos::Isa;
using topos::detail::ExactFunction;

using sweep::block;
using sweep::patterns;

// One function's sweep on each vector instruction set.
struct Tally {
    std::atomic<std::uint64_t> visited{0};
    std::atomic<std::int64_t> scalar_ns{0};
    std::atomic<std::uint64_t> differing[3]{};
    std::atomic<std::uint64_t> first_difference[3]{};
    std::atomic<std::int64_t> vector_ns[3]{};
};

void sweep_share(const std::vector<Isa>& sets,
                 ExactFunction f,
                 std::uint64_t step,
                 unsigned share,
                 unsigned shares,
                 Tally& tally) {
    std::vector<float> x(block);
    std::vector<float> scalar(block);
    std::vector<float> lanes(block);
    const std::uint64_t per_block = block * step;
    for (std::uint64_t first = share * per_block; first < patterns; first += shares * per_block) {
        const std::size_t count = sweep::fill_patterns(first, step, x);
        tally.scalar_ns += sweep::nanoseconds_of(
            [&] { topos::detail::exact_map_on(Isa::Portable, f, x.data(), scalar.data(), count); });
        for (std::size_t s = 0; s < sets.size(); ++s) {
            tally.vector_ns[s] += sweep::nanoseconds_of(
                [&] { topos::detail::exact_map_on(sets[s], f, x.data(), lanes.data(), count); });
            for (std::size_t i = 0; i < count; ++i) {
                if (std::memcmp(&scalar[i], &lanes[i], sizeof(float)) != 0) {
                    ++tally.differing[s];
                    std::uint32_t bits = 0;
                    std::memcpy(&bits, &x[i], sizeof bits);
                    std::uint64_t seen = tally.first_difference[s].load();
                    while (bits < seen &&
                           !tally.first_difference[s].compare_exchange_weak(seen, bits)) {
                    }
                }
            }
        }
        tally.visited += count;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint64_t step =
        argc > 1 ? std::max<std::uint64_t>(1, std::strtoull(argv[1], nullptr, 10)) : 1;
    const unsigned shares = std::max(1U, std::thread::hardware_concurrency());
    std::vector<Isa> sets;
    for (const Isa set : topos::supported_isas()) {
        if (set != Isa::Portable) {
            sets.push_back(set);
        }
    }
    if (step == 1) {
        std::printf("all 2^32 float bit patterns, on %u threads\n", shares);
    } else {
        std::printf("one float bit pattern in %llu, on %u threads\n",
                    static_cast<unsigned long long>(step),
                    shares);
    }
    const std::vector<ExactFunction> functions = sweep::chosen_functions(argc, argv);
    if (functions.empty()) {
        std::fprintf(stderr, "no such function; the functions are%s\n", sweep::all_names().c_str());
        return 2;
    }
    int status = 0;
    for (const ExactFunction f : functions) {
        Tally tally;
        for (std::size_t s = 0; s < sets.size(); ++s) {
            tally.first_difference[s] = patterns;
        }
        std::vector<std::thread> threads;
        const auto start = std::chrono::steady_clock::now();
        for (unsigned share = 0; share < shares; ++share) {
            threads.emplace_back([&, share] { sweep_share(sets, f, step, share, shares, tally); });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double visited = static_cast<double>(tally.visited.load());
        std::printf("%-8s %llu inputs in %.0f s; scalar %.2f ns an element",
                    std::string(topos::detail::name_of(f)).c_str(),
                    static_cast<unsigned long long>(tally.visited.load()),
                    seconds,
                    static_cast<double>(tally.scalar_ns.load()) / visited);
        for (std::size_t s = 0; s < sets.size(); ++s) {
            std::printf("; %s %.2f ns, %llu differ",
                        std::string(topos::name_of(sets[s])).c_str(),
                        static_cast<double>(tally.vector_ns[s].load()) / visited,
                        static_cast<unsigned long long>(tally.differing[s].load()));
            if (tally.differing[s].load() != 0) {
                std::printf(" (first 0x%08llx)",
                            static_cast<unsigned long long>(tally.first_difference[s].load()));
                status = 1;
            }
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    return status;
}
