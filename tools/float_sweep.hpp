// What the sweeps over every float (exact_lanes_sweep.cpp and
// fast_lanes_sweep.cpp) share: the functions and the ones a command line
// names, the blocks of bit patterns they visit, and their timer.
#pragma once

#include "kernels/transcendental.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace sweep {

using topos::detail::every_exact_function;
using topos::detail::ExactFunction;

inline constexpr std::uint64_t patterns = std::uint64_t{1} << 32;
inline constexpr std::size_t block = std::size_t{1} << 16;

// Fills x with every step-th bit pattern from `first`, up to a block's worth
// or the last pattern; returns how many.
inline std::size_t fill_patterns(std::uint64_t first, std::uint64_t step, std::vector<float>& x) {
    std::size_t count = 0;
    for (std::uint64_t bits = first; bits < std::min(patterns, first + block * step);
         bits += step) {
        const auto pattern = static_cast<std::uint32_t>(bits);
        std::memcpy(&x[count++], &pattern, sizeof pattern);
    }
    return count;
}

inline std::int64_t nanoseconds_of(auto&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                start)
        .count();
}

// " exp tanh ...": every function's name.
inline std::string all_names() {
    std::string names;
    for (const ExactFunction f : every_exact_function) {
        names += " " + std::string(topos::detail::name_of(f));
    }
    return names;
}

// The functions named after STEP (argv[2] on), every one when none is; empty
// when a name is unknown.
inline std::vector<ExactFunction> chosen_functions(int argc, char** argv) {
    if (argc <= 2) {
        return {std::begin(every_exact_function), std::end(every_exact_function)};
    }
    std::vector<ExactFunction> chosen;
    for (int a = 2; a < argc; ++a) {
        const auto named = std::find_if(
            std::begin(every_exact_function), std::end(every_exact_function), [&](ExactFunction f) {
                return topos::detail::name_of(f) == argv[a];
            });
        if (named == std::end(every_exact_function)) {
            return {};
        }
        chosen.push_back(*named);
    }
    return chosen;
}

}  // namespace sweep
