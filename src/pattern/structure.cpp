// The catalog's shared walks over the spec: two unfolds of an NCHW image
// behind optional zero Pads (image_windows, and pooling_windows behind their
// permute and reshape), a window's taps, two folds cropped back to the image
// by Narrows, a per-channel vector spread by BroadcastAlongs, and per-channel
// sums. Each records the nodes it covers and the window geometry it reads.
#include "pattern/structure.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

// Consumes up to one `Op` node per spatial axis (2 and 3) of a rank-4 value,
// while `start(attributes)` accepts it: where the image starts on that axis.
template <class Attributes, class Start>
std::uint32_t strip_spatial(const SpecView& spec,
                            std::uint32_t index,
                            Opcode op,
                            Start start,
                            WindowGeometry& geometry,
                            std::vector<std::uint32_t>& nodes) {
    std::array<bool, 2> seen{};
    while (const Node* node = spec.as(index, op)) {
        const auto& attributes = node->attributes_as<Attributes>();
        const std::optional<std::size_t> at = start(attributes);
        if (!at || attributes.axis < 2 || attributes.axis > 3 || seen[attributes.axis - 2] ||
            node->shape().rank() != 4) {
            break;
        }
        seen[attributes.axis - 2] = true;
        geometry.pad_before[attributes.axis - 2] = *at;
        nodes.push_back(index);
        index = node->operands()[0];
    }
    return index;
}

// Zero Pads (no interior padding) before the windows.
std::uint32_t strip_pads(const SpecView& spec,
                         std::uint32_t index,
                         WindowGeometry& geometry,
                         std::vector<std::uint32_t>& nodes) {
    const auto start = [](const PadAttributes& pad) -> std::optional<std::size_t> {
        return pad.interior == 0 ? std::optional(pad.before) : std::nullopt;
    };
    return strip_spatial<PadAttributes>(spec, index, Opcode::Pad, start, geometry, nodes);
}

// Narrows that crop folded windows back to the image.
std::uint32_t strip_crops(const SpecView& spec,
                          std::uint32_t index,
                          WindowGeometry& geometry,
                          std::vector<std::uint32_t>& nodes) {
    const auto start = [](const NarrowAttributes& narrow) -> std::optional<std::size_t> {
        return narrow.start;
    };
    return strip_spatial<NarrowAttributes>(spec, index, Opcode::Narrow, start, geometry, nodes);
}

}  // namespace

std::optional<ImageWindows> image_windows(const SpecView& spec, std::uint32_t unfolded) {
    const Node* columns = spec.as(unfolded, Opcode::Unfold);
    if (columns == nullptr || columns->shape().rank() != 6) {
        return std::nullopt;
    }
    const auto& across = columns->attributes_as<WindowAttributes>();
    const Node* rows = spec.as(columns->operands()[0], Opcode::Unfold);
    if (across.axis != 4 || rows == nullptr || rows->shape().rank() != 5) {
        return std::nullopt;
    }
    const auto& down = rows->attributes_as<WindowAttributes>();
    if (down.axis != 2) {
        return std::nullopt;
    }
    ImageWindows windows{};
    windows.nodes = {unfolded, columns->operands()[0]};
    WindowGeometry& g = windows.geometry;
    windows.image = strip_pads(spec, rows->operands()[0], g, windows.nodes);
    const Shape& image = spec[windows.image].shape();
    if (image.rank() != 4) {
        return std::nullopt;
    }
    g.batch = image[0];
    g.channels = image[1];
    g.extent = {image[2], image[3]};
    g.size = {down.size, across.size};
    g.step = {down.step, across.step};
    g.dilation = {down.dilation, across.dilation};
    g.count = {columns->shape()[2], columns->shape()[4]};
    std::sort(windows.nodes.begin(), windows.nodes.end());
    return windows;
}

std::optional<ImageWindows> pooling_windows(const SpecView& spec, std::uint32_t index) {
    const Node* windows = spec.as(index, Opcode::Reshape);
    if (windows == nullptr || windows->shape().rank() != 5) {
        return std::nullopt;
    }
    const std::uint32_t ordered = windows->operands()[0];
    if (!is_permute(spec, ordered, {0, 1, 2, 4, 3, 5})) {
        return std::nullopt;
    }
    std::optional<ImageWindows> found = image_windows(spec, spec[ordered].operands()[0]);
    if (!found) {
        return std::nullopt;
    }
    const WindowGeometry& g = found->geometry;
    if (windows->shape() != Shape{g.batch, g.channels, g.count[0], g.count[1], g.taps()}) {
        return std::nullopt;
    }
    found->nodes.push_back(ordered);
    found->nodes.push_back(index);
    std::sort(found->nodes.begin(), found->nodes.end());
    return found;
}

bool is_tap(const SpecView& spec, std::uint32_t index, std::uint32_t windows, std::size_t tap) {
    const Node* narrow = spec.as(index, Opcode::Narrow);
    if (narrow == nullptr || narrow->operands()[0] != windows) {
        return false;
    }
    const auto& attributes = narrow->attributes_as<NarrowAttributes>();
    return attributes.axis == 4 && attributes.start == tap && attributes.length == 1;
}

std::optional<FoldedWindows> folded_windows(const SpecView& spec, std::uint32_t root) {
    const Shape& image = spec[root].shape();
    if (image.rank() != 4) {
        return std::nullopt;
    }
    FoldedWindows folded{};
    WindowGeometry& g = folded.geometry;
    const std::uint32_t rows_index = strip_crops(spec, root, g, folded.nodes);
    const Node* rows = spec.as(rows_index, Opcode::Fold);
    if (rows == nullptr || rows->shape().rank() != 4) {
        return std::nullopt;
    }
    const Node* columns = spec.as(rows->operands()[0], Opcode::Fold);
    const auto& down = rows->attributes_as<FoldAttributes>();
    if (down.axis != 2 || columns == nullptr || columns->shape().rank() != 5) {
        return std::nullopt;
    }
    const auto& across = columns->attributes_as<FoldAttributes>();
    folded.taps = columns->operands()[0];
    const Shape& taps = spec[folded.taps].shape();
    if (across.axis != 4 || taps.rank() != 6) {
        return std::nullopt;
    }
    folded.nodes.push_back(rows_index);
    folded.nodes.push_back(rows->operands()[0]);
    std::sort(folded.nodes.begin(), folded.nodes.end());
    g.batch = image[0];
    g.channels = image[1];
    g.extent = {image[2], image[3]};
    g.size = {down.size, across.size};
    g.step = {down.step, across.step};
    g.dilation = {down.dilation, across.dilation};
    g.count = {taps[2], taps[4]};
    folded.folded = {down.extent, across.extent};
    return folded;
}

bool is_permute(const SpecView& spec,
                std::uint32_t index,
                std::initializer_list<std::size_t> order) {
    const Node* permute = spec.as(index, Opcode::Permute);
    if (permute == nullptr) {
        return false;
    }
    const Axes& axes = permute->attributes_as<PermuteAttributes>().order;
    return std::equal(axes.values().begin(), axes.values().end(), order.begin(), order.end());
}

std::optional<Spread> spread_of(const SpecView& spec, std::uint32_t index, const Shape& like) {
    Spread spread{index, {}};
    for (std::size_t step = 0; step + 1 < like.rank(); ++step) {
        const std::size_t axis = step + 1 < like.rank() - 1 ? like.rank() - 1 - step : 0;
        const Node* along = spec.as(spread.source, Opcode::BroadcastAlong);
        if (along == nullptr) {
            return std::nullopt;
        }
        const auto& attributes = along->attributes_as<BroadcastAttributes>();
        if (attributes.axis != axis || attributes.extent != like[axis]) {
            return std::nullopt;
        }
        spread.nodes.push_back(spread.source);
        spread.source = along->operands()[0];
    }
    if (spec[spread.source].shape() != Shape{like[1]}) {
        return std::nullopt;
    }
    return spread;
}

std::optional<ChannelSums> channel_sums_of(const SpecView& spec,
                                           std::uint32_t index,
                                           const Shape& like) {
    ChannelSums sums{index, {}};
    for (std::size_t step = 0; step + 1 < like.rank(); ++step) {
        const std::size_t axis = step == 0 ? 0 : step + 1;
        const Node* sum = spec.as(sums.source, Opcode::Sum);
        const auto* along = sum ? std::get_if<AxisAttributes>(&sum->attributes()) : nullptr;
        if (along == nullptr || along->axis != axis) {
            return std::nullopt;
        }
        sums.nodes.push_back(sums.source);
        sums.source = sum->operands()[0];
    }
    if (spec[sums.source].shape() != like) {
        return std::nullopt;
    }
    return sums;
}

}  // namespace topos::detail
