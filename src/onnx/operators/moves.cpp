// Moves: the non-template steps of moves.hpp, over integer constants (the
// folding case), with the runs of positions and the small helpers they share.
#include "onnx/operators/moves.hpp"

#include "onnx/constant.hpp"
#include "onnx/folding.hpp"
#include "onnx/model_def.hpp"
#include <topos/onnx/errors.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace topos::onnx::detail::moves {

std::string listed(const Extents& values) {
    std::string text = "[";
    for (std::size_t index = 0; index < values.size(); ++index) {
        text += (index == 0 ? "" : ", ") + std::to_string(values[index]);
    }
    return text + "]";
}

std::int64_t product(const Extents& extents, std::size_t from, std::size_t to) {
    std::int64_t result = 1;
    for (std::size_t axis = from; axis < to; ++axis) {
        result *= extents[axis];
    }
    return result;
}

Positions range_of(std::int64_t start, std::int64_t count) {
    Positions positions;
    for (std::int64_t offset = 0; offset < count; ++offset) {
        positions.push_back(start + offset);
    }
    return positions;
}

// ---- Constants: the folding case.

Constant mapped(const Constant& source, Extents extents, const Positions& sources, double fill) {
    Constant result;
    result.type = source.type;
    result.extents = std::move(extents);
    const bool real = is_real(source.type);
    for (std::int64_t from : sources) {
        const auto at = static_cast<std::size_t>(from);
        if (real) {
            result.reals.push_back(from < 0 ? fill : source.reals[at]);
        } else {
            result.integers.push_back(from < 0 ? std::llround(fill) : source.integers[at]);
        }
    }
    return result;
}

Extents extents_of(const Constant& data) {
    return data.extents;
}

Constant reshaped(const Constant& data, const Extents& extents) {
    Constant result = data;
    result.extents = extents;
    return result;
}

Constant permuted(const Constant& data, const Order& order) {
    const std::size_t rank = order.size();
    Extents extents;
    Extents strides(rank, 1);
    for (std::size_t axis = rank; axis-- > 1;) {
        strides[axis - 1] = strides[axis] * data.extents[axis];
    }
    for (std::size_t axis : order) {
        extents.push_back(data.extents[axis]);
    }
    Positions sources;
    Extents index(rank, 0);  // of the result, advanced like an odometer
    for (std::int64_t count = product(extents, 0, rank); count > 0; --count) {
        std::int64_t source = 0;
        for (std::size_t axis = 0; axis < rank; ++axis) {
            source += index[axis] * strides[order[axis]];
        }
        sources.push_back(source);
        for (std::size_t axis = rank; axis-- > 0;) {
            if (++index[axis] < extents[axis]) {
                break;
            }
            index[axis] = 0;
        }
    }
    return mapped(data, extents, sources, 0);
}

Constant taken(const Constant& data, std::size_t axis, const Positions& positions, double fill) {
    const std::int64_t outer = product(data.extents, 0, axis);
    const std::int64_t extent = data.extents[axis];
    const std::int64_t inner = product(data.extents, axis + 1, data.extents.size());
    Positions sources;
    for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t position : positions) {
            for (std::int64_t i = 0; i < inner; ++i) {
                sources.push_back(position < 0 ? -1 : (o * extent + position) * inner + i);
            }
        }
    }
    Extents extents = data.extents;
    extents[axis] = static_cast<std::int64_t>(positions.size());
    return mapped(data, extents, sources, fill);
}

Constant padded(
    const Constant& data, std::size_t axis, std::int64_t before, std::int64_t after, double fill) {
    Positions positions(static_cast<std::size_t>(before), -1);
    const Positions kept = range_of(0, data.extents[axis]);
    positions.insert(positions.end(), kept.begin(), kept.end());
    positions.insert(positions.end(), static_cast<std::size_t>(after), -1);
    return taken(data, axis, positions, fill);
}

Constant broadcast(const Constant& data, const Extents& extents) {
    Positions sources;
    for (std::size_t source : broadcast_sources(data.extents, extents)) {
        sources.push_back(static_cast<std::int64_t>(source));
    }
    return mapped(data, extents, sources, 0);
}

Constant tiled(const Constant& data, std::size_t axis, std::int64_t repeats) {
    Positions positions;
    for (std::int64_t copy = 0; copy < repeats; ++copy) {
        const Positions once = range_of(0, data.extents[axis]);
        positions.insert(positions.end(), once.begin(), once.end());
    }
    return taken(data, axis, positions);
}

Constant joined(const std::vector<Constant>& parts, std::size_t axis, const NodeDef& node) {
    Constant result;
    result.type = parts.front().type;
    result.extents = parts.front().extents;
    result.extents[axis] = 0;
    for (const Constant& part : parts) {
        Extents expected = result.extents;
        expected[axis] = part.extents.size() == expected.size() ? part.extents[axis] : 0;
        if (part.extents != expected) {
            contradiction(node,
                          "cannot join " + listed(part.extents) + " to " +
                              listed(parts.front().extents) + " along axis " +
                              std::to_string(axis));
        }
        result.extents[axis] += part.extents[axis];
    }
    const std::int64_t outer = product(result.extents, 0, axis);
    for (std::int64_t o = 0; o < outer; ++o) {
        for (const Constant& part : parts) {
            const std::int64_t block = product(part.extents, axis, part.extents.size());
            const auto begin = static_cast<std::ptrdiff_t>(o * block);
            const auto end = begin + static_cast<std::ptrdiff_t>(block);
            if (is_real(result.type)) {
                result.reals.insert(
                    result.reals.end(), part.reals.begin() + begin, part.reals.begin() + end);
            } else {
                result.integers.insert(result.integers.end(),
                                       part.integers.begin() + begin,
                                       part.integers.begin() + end);
            }
        }
    }
    return result;
}

// ---- Runs of positions, and reading a node.

std::vector<Run> runs_of(const Positions& positions) {
    std::vector<Run> runs;
    std::size_t at = 0;
    while (at < positions.size()) {
        Run run{positions[at], 0, 1};
        if (at + 1 < positions.size() && positions[at + 1] >= positions[at]) {
            run.step = positions[at + 1] - positions[at];
            while (at + static_cast<std::size_t>(run.count) < positions.size() &&
                   positions[at + static_cast<std::size_t>(run.count)] ==
                       run.start + run.count * run.step) {
                ++run.count;
            }
        }
        runs.push_back(run);
        at += static_cast<std::size_t>(run.count);
    }
    return runs;
}

Extents required(const std::optional<Extents>& list, const NodeDef& node, const std::string& name) {
    if (!list) {
        contradiction(node, "lacks its " + name);
    }
    return *list;
}

}  // namespace topos::onnx::detail::moves
