// Folding: operators whose inputs are all integer constants (shape
// arithmetic: Shape, Gather, Concat, Mul, ...) are computed while the model is
// recorded instead of recorded. These helpers broadcast constants numpy-style
// and map their elements.
#pragma once

#include "onnx/constant.hpp"
#include "onnx/model_def.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace topos::onnx::detail {

// The numpy broadcast of two extents lists; ModelError naming the node when they do not broadcast.
std::vector<std::int64_t> broadcast_extents(const std::vector<std::int64_t>& a,
                                            const std::vector<std::int64_t>& b,
                                            const NodeDef& node);

// For each element of the broadcast result, the element of an operand with `extents` it reads.
std::vector<std::size_t> broadcast_sources(const std::vector<std::int64_t>& extents,
                                           const std::vector<std::int64_t>& result);

// a op b over integers, broadcast, as a constant of `result_type`.
template <class Operation>
Constant fold_integers(const Constant& a,
                       const Constant& b,
                       DataType result_type,
                       const NodeDef& node,
                       Operation operation) {
    Constant result;
    result.type = result_type;
    result.extents = broadcast_extents(a.extents, b.extents, node);
    const auto left = a.as_integers();
    const auto right = b.as_integers();
    const auto from_a = broadcast_sources(a.extents, result.extents);
    const auto from_b = broadcast_sources(b.extents, result.extents);
    for (std::size_t index = 0; index < from_a.size(); ++index) {
        result.integers.push_back(operation(left[from_a[index]], right[from_b[index]]));
    }
    return result;
}

// Whether every given input of the node is an integer constant (the folding case).
template <class Context>
bool integer_constants(const Context& context, const NodeDef& node) {
    bool any = false;
    for (std::size_t index = 0; index < node.inputs.size(); ++index) {
        if (node.inputs[index].empty()) {
            continue;
        }
        if (!context.is_constant(node.inputs[index]) ||
            !is_integral(context.type_of(node.inputs[index]))) {
            return false;
        }
        any = true;
    }
    return any;
}

}  // namespace topos::onnx::detail
