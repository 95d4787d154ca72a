// Reading an index held in a real tensor: index values are exact integers
// (index inputs check that at feed time); a value outside [0, bound) is a run
// time IndexError that names the operation.
#pragma once

#include <topos/core/error.hpp>

#include <cstddef>
#include <string>

namespace topos::detail {

template <class T>
std::size_t checked_index(T value, std::size_t bound, const char* operation) {
    if (!(value >= T{0} && value < static_cast<T>(bound))) {
        throw IndexError(std::string(operation) + " met index " + std::to_string(value) +
                         ", outside [0, " + std::to_string(bound) + ")");
    }
    return static_cast<std::size_t>(value);
}

}  // namespace topos::detail
