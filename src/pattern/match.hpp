// A match of the pattern catalog: which nodes a structure covers, what its
// fused kernel reads and writes, and the geometry the kernel needs. Matches
// are found over the frozen spec; a plan's election decides which it uses.
#pragma once

#include <topos/graph/node.hpp>
#include <topos/pattern/pattern.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>
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

// A WindowProduct: the [N*OH*OW, C*KH*KW] windows matrix times a
// [C*KH*KW, O] matrix. Inputs: the image, the matrix.
// Transposed: the windows matrix's transpose times a [N*OH*OW, O] matrix (a
// convolution's filter gradient). Inputs: the image, the matrix.
struct WindowProductGeometry {
    WindowGeometry window;
    std::size_t columns = 0;  // O
    bool transposed = false;
};

// A ReduceWindow: each window of [N, C, H, W] reduced to one value, by a left
// fold (a chain of Maximum or Add over the taps in row-major order) or by a
// striped Sum reduction. Inputs: the image.
struct ReduceWindowGeometry {
    enum class Reduction : std::uint8_t {
        MaximumChain,
        AddChain,
        StripedSum
    };
    WindowGeometry window;
    Reduction reduction = Reduction::MaximumChain;
};

// Batch normalisation of [N, C, ...] over every axis but axis 1. Inputs: the
// input, gamma, beta, epsilon (a [C] leaf), then for training the two count
// leaves of the means, for inference the mean and the variance. Training
// results: the output, then the mean and the variance.
struct BatchNormGeometry {
    Shape shape;
    bool training = false;
};

// A Map: elementwise members in node order, each reading inputs of the match
// or earlier members; all of one element count. The kernel runs the members'
// own kernels a block of elements at a time, so intermediates stay in a small
// scratch and every element sees the same operations as unfused.
struct MapGeometry {
    struct Member {
        const Node* node;
        std::array<std::int32_t, Node::max_operands> reads{};  // >= 0: member; < 0: input -1 - k
    };

    std::vector<Member> members;
    std::size_t elements = 0;
};

using PatternGeometry =
    std::variant<WindowProductGeometry, ReduceWindowGeometry, BatchNormGeometry, MapGeometry>;

struct Match {
    PatternKind kind;
    std::uint32_t root;
    std::vector<std::uint32_t> nodes;    // covered, ascending, root included
    std::vector<std::uint32_t> results;  // root first, then named results it may write back
    std::vector<std::uint32_t> inputs;   // values outside the match the kernel reads
    PatternGeometry geometry;
};

// What a plan elected: a match and which of its results it materialises.
struct Election {
    Match match;
    std::vector<bool> writes;  // by result: whether the kernel writes it
};

}  // namespace topos::detail
