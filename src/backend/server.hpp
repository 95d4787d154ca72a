// What an optional backend implements: which nodes it serves, with what
// fidelity, and the kernel that serves them. The reference kernels (the op
// table and the pattern catalog) serve everything a backend declines.
#pragma once

#include "ops/op_info.hpp"
#include <topos/backend/backend.hpp>

#include <span>
#include <string_view>
#include <vector>

namespace topos::detail {

struct Server {
    std::string_view name;
    Fidelity fidelity;
    std::vector<std::string> formulas;
    // Whether it serves `node` (operand shapes included) at this precision.
    bool (*serves)(const Node& node, std::span<const Shape> operands, Precision precision);
    Kernel<float> kernel_f32;
    Kernel<double> kernel_f64;

    template <Element T>
    Kernel<T> kernel() const {
        if constexpr (std::same_as<T, float>) {
            return kernel_f32;
        } else {
            return kernel_f64;
        }
    }
};

// The optional backends compiled into this build, in priority order.
std::span<const Server* const> servers();

template <Element T>
constexpr Precision precision_of() {
    return std::same_as<T, float> ? Precision::F32 : Precision::F64;
}

inline constexpr std::string_view reference_name = "reference";

}  // namespace topos::detail
