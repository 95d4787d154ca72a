// Reading structures off the spec: the small walks every matcher of the
// catalog shares. Each returns nothing when the structure is not there.
#pragma once

#include <topos/graph/node.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

namespace topos::detail {

// Windows over the last two axes of an [N, C, H, W] image: the image is
// zero-padded, then each output (oh, ow) reads taps (kh, kw) at
// (oh * step + kh * dilation, ow * step + kw * dilation) of the padded image.
struct WindowGeometry {
    std::size_t batch = 0;
    std::size_t channels = 0;
    std::array<std::size_t, 2> extent{};  // the unpadded image's H and W
    std::array<std::size_t, 2> pad_before{};
    std::array<std::size_t, 2> size{};
    std::array<std::size_t, 2> step{};
    std::array<std::size_t, 2> dilation{};
    std::array<std::size_t, 2> count{};  // OH and OW

    std::size_t taps() const { return size[0] * size[1]; }

    std::size_t outputs() const { return count[0] * count[1]; }
};

// The spec a matcher reads.
struct SpecView {
    const std::vector<Node>& nodes;

    const Node& operator[](std::uint32_t index) const { return nodes[index]; }

    // The node when it has `opcode`, else nothing.
    const Node* as(std::uint32_t index, Opcode opcode) const {
        const Node& node = nodes[index];
        return node.opcode() == opcode ? &node : nullptr;
    }
};

// The windows of an [N, C, H, W] image: Unfold(axis 4) of Unfold(axis 2) of
// the image, zero-padded on axes 2 and 3 by up to two Pad nodes first.
struct ImageWindows {
    std::uint32_t image;
    WindowGeometry geometry;
    std::vector<std::uint32_t> nodes;  // the pads and unfolds, ascending
};

// `unfolded` names the second Unfold, of shape [N, C, OH, KH, OW, KW].
std::optional<ImageWindows> image_windows(const SpecView& spec, std::uint32_t unfolded);

// Whether `index` is a Permute with exactly `order`.
bool is_permute(const SpecView& spec,
                std::uint32_t index,
                std::initializer_list<std::size_t> order);

// A [C] vector spread over `like` by BroadcastAlong nodes (axis 0, then 2, 3, ...).
struct Spread {
    std::uint32_t source;
    std::vector<std::uint32_t> nodes;
};

std::optional<Spread> spread_of(const SpecView& spec, std::uint32_t index, const Shape& like);

// Single-axis Sums of `like`-shaped values over every axis but 1, last axis
// first: Sum(axis 0) of ... of Sum(axis rank - 1) of the source.
struct ChannelSums {
    std::uint32_t source;
    std::vector<std::uint32_t> nodes;
};

std::optional<ChannelSums> channel_sums_of(const SpecView& spec,
                                           std::uint32_t index,
                                           const Shape& like);

}  // namespace topos::detail
