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

    friend bool operator==(const WindowGeometry&, const WindowGeometry&) = default;
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

// The windows of a pooling: Reshape [N, C, OH, OW, KH*KW] of Permute
// [0, 1, 2, 4, 3, 5] of image_windows. `index` names the Reshape.
std::optional<ImageWindows> pooling_windows(const SpecView& spec, std::uint32_t index);

// Whether `index` is Narrow(windows, axis 4, start tap, length 1): one tap of
// every pooling window.
bool is_tap(const SpecView& spec, std::uint32_t index, std::uint32_t windows, std::size_t tap);

// Window taps summed back onto an [N, C, H, W] image, the adjoint of
// image_windows: Fold(axis 2) of Fold(axis 4) of taps laid out
// [N, C, OH, KH, OW, KW], then cropped by up to two Narrows of axes 2 and 3
// (the adjoint of the windows' zero padding). The geometry's extent is the
// cropped image and its pad_before where the crop starts.
struct FoldedWindows {
    std::uint32_t taps;
    WindowGeometry geometry;
    std::array<std::size_t, 2> folded{};  // H and W before the crop
    std::vector<std::uint32_t> nodes;     // the folds and narrows, ascending
};

// `root` names the last node: the second Fold, or the last Narrow.
std::optional<FoldedWindows> folded_windows(const SpecView& spec, std::uint32_t root);

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
