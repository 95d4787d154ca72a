// What the compiled Functions of the model layer (Function, MixedPrecision)
// cache a plan under: its posture, then every input's rank and extents.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace topos::detail {

using PlanKey = std::vector<std::size_t>;

inline PlanKey plan_key(std::size_t posture, const std::vector<Shape>& shapes) {
    PlanKey key{posture};
    for (const Shape& shape : shapes) {
        key.push_back(shape.rank());
        key.insert(key.end(), shape.extents().begin(), shape.extents().end());
    }
    return key;
}

template <Element T>
std::vector<Shape> shapes_of(std::span<const Tensor<T>> inputs) {
    std::vector<Shape> shapes;
    for (const Tensor<T>& input : inputs) {
        shapes.push_back(input.shape());
    }
    return shapes;
}

}  // namespace topos::detail
