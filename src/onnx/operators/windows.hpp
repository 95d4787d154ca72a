// Windows: what Conv, ConvTranspose and the poolings read alike: attributes
// with a value per spatial axis (kernel_shape, strides, dilations, pads) and
// the padding auto_pad asks for.
#pragma once

#include "onnx/model_def.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace topos::onnx::detail {

// The attribute `name`: `count` values, each at least `least`, or `fallback`
// on every axis where it is absent; ModelError otherwise.
std::vector<std::size_t> per_axis(const NodeDef& node,
                                  const std::string& name,
                                  std::size_t count,
                                  std::size_t fallback,
                                  std::int64_t least);

enum class AutoPad {
    NotSet,
    SameUpper,
    SameLower,
    Valid
};

// The node's auto_pad; ModelError for a value ONNX does not define.
AutoPad auto_pad_of(const NodeDef& node);

// `total` padding as before and after: the odd position at the end for
// SAME_UPPER, at the start otherwise.
std::pair<std::size_t, std::size_t> split_padding(std::size_t total, AutoPad mode);

// The padding before and after one axis of `input` positions that SAME_UPPER
// or SAME_LOWER asks for, windows spanning `span` positions `stride` apart:
// as many windows as ceil(input / stride), the odd position at the end
// (SAME_UPPER) or at the start (SAME_LOWER).
std::pair<std::size_t, std::size_t> same_padding(std::size_t input,
                                                 std::size_t stride,
                                                 std::size_t span,
                                                 AutoPad mode);

}  // namespace topos::onnx::detail
