// Reading an index held in a real tensor: index values are exact integers
// (index inputs check that at feed time); a value outside [0, bound) is a run
// time IndexError that names the operation, the calls that record it and the fix.
#pragma once

#include "core/float_text.hpp"
#include <topos/core/error.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>

namespace topos::detail {

// An index as a person writes it: 7, -1, 2.5, 1e+300, nan (never 300 digits).
template <class T>
std::string index_text(T value) {
    if (std::isfinite(value) && std::trunc(value) == value && std::fabs(value) < T{1e15}) {
        return std::to_string(static_cast<long long>(value));
    }
    char text[64];
    const auto written = detail::to_chars(text, text + sizeof text, value);
    return std::string(text, written.ptr);
}

// `operation` names the opcode and the calls that record it, e.g.
// "OneHot (one_hot, cross_entropy's labels)".
template <class T>
std::size_t checked_index(T value, std::size_t bound, const char* operation) {
    if (!(value >= T{0} && value < static_cast<T>(bound))) {
        throw IndexError(std::string(operation) + " met index " + index_text(value) +
                         ", outside [0, " + std::to_string(bound) +
                         "); every index must be an integer in that range: check the values "
                         "fed or recorded for it");
    }
    return static_cast<std::size_t>(value);
}

}  // namespace topos::detail
