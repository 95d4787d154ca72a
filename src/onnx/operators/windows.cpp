// Windows: per-axis attributes and auto_pad, read once for every operator
// that slides windows.
#include "onnx/operators/windows.hpp"

#include "core/divide_rounding_up.hpp"
#include "onnx/context.hpp"

namespace topos::onnx::detail {

std::vector<std::size_t> per_axis(const NodeDef& node,
                                  const std::string& name,
                                  std::size_t count,
                                  std::size_t fallback,
                                  std::int64_t least) {
    const auto given = integers_attribute(node, name);
    if (!given) {
        return std::vector<std::size_t>(count, fallback);
    }
    if (given->size() != count) {
        contradiction(node,
                      "attribute " + name + " holds " + std::to_string(given->size()) +
                          " values where the input needs " + std::to_string(count));
    }
    std::vector<std::size_t> values;
    values.reserve(given->size());
    for (const std::int64_t value : *given) {
        if (value < least) {
            contradiction(node,
                          "attribute " + name + " holds " + std::to_string(value) + ", below " +
                              std::to_string(least));
        }
        values.push_back(static_cast<std::size_t>(value));
    }
    return values;
}

AutoPad auto_pad_of(const NodeDef& node) {
    const std::string mode = text_attribute(node, "auto_pad", "NOTSET");
    if (mode == "NOTSET" || mode.empty()) {
        return AutoPad::NotSet;
    }
    if (mode == "SAME_UPPER") {
        return AutoPad::SameUpper;
    }
    if (mode == "SAME_LOWER") {
        return AutoPad::SameLower;
    }
    if (mode == "VALID") {
        return AutoPad::Valid;
    }
    contradiction(node, "auto_pad=" + mode + " is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
}

std::pair<std::size_t, std::size_t> split_padding(std::size_t total, AutoPad mode) {
    const std::size_t before = mode == AutoPad::SameUpper ? total / 2 : total - total / 2;
    return {before, total - before};
}

std::pair<std::size_t, std::size_t> same_padding(std::size_t input,
                                                 std::size_t stride,
                                                 std::size_t span,
                                                 AutoPad mode) {
    const std::size_t windows = topos::detail::divide_rounding_up(input, stride);
    const std::size_t reach = windows == 0 ? 0 : (windows - 1) * stride + span;
    return split_padding(reach > input ? reach - input : 0, mode);
}

}  // namespace topos::onnx::detail
