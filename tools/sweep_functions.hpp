// The functions the sweeps over every float take (exact_lanes_sweep.cpp and
// fast_lanes_sweep.cpp), and the ones a command line names.
#pragma once

#include "kernels/transcendental.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace sweep {

using topos::detail::ExactFunction;

inline constexpr ExactFunction every_function[] = {ExactFunction::Exp,
                                                   ExactFunction::Tanh,
                                                   ExactFunction::Sigmoid,
                                                   ExactFunction::Erf,
                                                   ExactFunction::Gelu,
                                                   ExactFunction::Log,
                                                   ExactFunction::Softplus};

// " exp tanh ...": every function's name.
inline std::string all_names() {
    std::string names;
    for (const ExactFunction f : every_function) {
        names += " " + std::string(topos::detail::name_of(f));
    }
    return names;
}

// The functions named after STEP (argv[2] on), every one when none is; empty
// when a name is unknown.
inline std::vector<ExactFunction> chosen_functions(int argc, char** argv) {
    if (argc <= 2) {
        return {std::begin(every_function), std::end(every_function)};
    }
    std::vector<ExactFunction> chosen;
    for (int a = 2; a < argc; ++a) {
        const auto named = std::find_if(
            std::begin(every_function), std::end(every_function), [&](ExactFunction f) {
                return topos::detail::name_of(f) == argv[a];
            });
        if (named == std::end(every_function)) {
            return {};
        }
        chosen.push_back(*named);
    }
    return chosen;
}

}  // namespace sweep
