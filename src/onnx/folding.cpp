// Folding: numpy broadcasting over constants' extents.
#include "onnx/folding.hpp"

#include <topos/onnx/errors.hpp>

#include <algorithm>
#include <string>

namespace topos::onnx::detail {

std::vector<std::int64_t> broadcast_extents(const std::vector<std::int64_t>& a,
                                            const std::vector<std::int64_t>& b,
                                            const NodeDef& node) {
    const std::size_t rank = std::max(a.size(), b.size());
    std::vector<std::int64_t> result(rank, 1);
    for (std::size_t axis = 0; axis < rank; ++axis) {
        const std::int64_t left = axis + a.size() >= rank ? a[axis + a.size() - rank] : 1;
        const std::int64_t right = axis + b.size() >= rank ? b[axis + b.size() - rank] : 1;
        if (left != right && left != 1 && right != 1) {
            throw ModelError("node " + node.name + " (" + node.operator_type + "): extents " +
                             std::to_string(left) + " and " + std::to_string(right) +
                             " do not broadcast");
        }
        result[axis] = left == 1 ? right : left;
    }
    return result;
}

std::vector<std::size_t> broadcast_sources(const std::vector<std::int64_t>& extents,
                                           const std::vector<std::int64_t>& result) {
    std::size_t count = 1;
    for (std::int64_t extent : result) {
        count *= static_cast<std::size_t>(extent);
    }
    const std::size_t offset = result.size() - extents.size();
    std::vector<std::size_t> sources(count, 0);
    for (std::size_t flat = 0; flat < count; ++flat) {
        std::size_t remaining = flat;
        std::size_t source = 0;
        std::size_t stride = 1;
        for (std::size_t axis = result.size(); axis-- > 0;) {
            const auto extent = static_cast<std::size_t>(result[axis]);
            const std::size_t position = remaining % extent;
            remaining /= extent;
            if (axis >= offset) {
                const auto own = static_cast<std::size_t>(extents[axis - offset]);
                source += (own == 1 ? 0 : position) * stride;
                stride *= own;
            }
        }
        sources[flat] = source;
    }
    return sources;
}

}  // namespace topos::onnx::detail
