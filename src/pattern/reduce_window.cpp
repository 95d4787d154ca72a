// ReduceWindow: each window of an [N, C, H, W] image reduced to one value,
// without the windows being materialised. The windows are
//   W = Reshape [N, C, OH, OW, KH*KW] (Permute [0, 1, 2, 4, 3, 5] (windows))
// and the reduction is either a left fold over the taps in row-major order,
//   Reshape [N, C, OH, OW] (B(...B(B(Narrow(W, 0), Narrow(W, 1)), ...), Narrow(W, S-1)))
// with B = Maximum (max_pool) or Add (average_pool's sum), or a Sum along the
// tap axis (striped, as the Sum opcode orders it).
#include "ops/reduce.hpp"
#include "pattern/catalog.hpp"
#include "pattern/fitted_windows.hpp"
#include "pattern/window_taps.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace topos::detail {
namespace {

// Each window of [N, C, H, W] reduced to one value, by a left fold (a chain of
// Maximum or Add over the taps in row-major order) or by a striped Sum
// reduction. Inputs: the image.
struct ReduceWindowGeometry {
    enum class Reduction : std::uint8_t {
        MaximumChain,
        AddChain,
        StripedSum
    };
    WindowGeometry window;
    Reduction reduction = Reduction::MaximumChain;
};

using Reduction = ReduceWindowGeometry::Reduction;

struct Chain {
    Reduction reduction;
    std::uint32_t windows;
    std::vector<std::uint32_t> nodes;
};

// A left fold of Narrow taps ending at `end`; the windows node is found from the last tap.
std::optional<Chain> tap_chain(const SpecView& spec, std::uint32_t end) {
    const Node& last = spec[end];
    Chain chain{Reduction::MaximumChain, 0, {}};
    if (last.opcode() == Opcode::Narrow) {
        chain.windows = last.operands()[0];
    } else if (last.opcode() == Opcode::Maximum || last.opcode() == Opcode::Add) {
        chain.reduction =
            last.opcode() == Opcode::Maximum ? Reduction::MaximumChain : Reduction::AddChain;
        const Node* tap = spec.as(last.operands()[1], Opcode::Narrow);
        if (tap == nullptr) {
            return std::nullopt;
        }
        chain.windows = tap->operands()[0];
    } else {
        return std::nullopt;
    }
    const Shape& windows = spec[chain.windows].shape();
    if (windows.rank() != 5) {
        return std::nullopt;
    }
    const Opcode combine =
        chain.reduction == Reduction::MaximumChain ? Opcode::Maximum : Opcode::Add;
    std::uint32_t at = end;
    for (std::size_t tap = windows[4] - 1; tap > 0; --tap) {
        const Node* step = spec.as(at, combine);
        if (step == nullptr || !is_tap(spec, step->operands()[1], chain.windows, tap)) {
            return std::nullopt;
        }
        chain.nodes.push_back(at);
        chain.nodes.push_back(step->operands()[1]);
        at = step->operands()[0];
    }
    if (!is_tap(spec, at, chain.windows, 0)) {
        return std::nullopt;
    }
    chain.nodes.push_back(at);
    return chain;
}

// The chain form: Reshape [N, C, OH, OW] of a fold of taps.
std::optional<Chain> folded_taps(const SpecView& spec, std::uint32_t root) {
    const Node* result = spec.as(root, Opcode::Reshape);
    if (result == nullptr || result->shape().rank() != 4) {
        return std::nullopt;
    }
    std::optional<Chain> chain = tap_chain(spec, result->operands()[0]);
    if (chain) {
        chain->nodes.push_back(root);
    }
    return chain;
}

// The reduction form: Sum along the tap axis.
std::optional<Chain> summed_taps(const SpecView& spec, std::uint32_t root) {
    const Node* sum = spec.as(root, Opcode::Sum);
    const auto* along = sum ? std::get_if<AxisAttributes>(&sum->attributes()) : nullptr;
    if (along == nullptr || along->axis != 4 || spec[sum->operands()[0]].shape().rank() != 5) {
        return std::nullopt;
    }
    return Chain{Reduction::StripedSum, sum->operands()[0], {root}};
}

// Folds the taps of one window, in row-major order, as the matched
// operations do: a left fold with Maximum or Add, or the striped Sum.
template <Reduction R, Element T>
T reduce_taps(const T* taps, std::size_t count) {
    if constexpr (R == Reduction::StripedSum) {
        return striped_sum<T>(count, [taps](std::size_t tap) { return taps[tap]; });
    } else {
        T result = taps[0];
        for (std::size_t tap = 1; tap < count; ++tap) {
            result =
                R == Reduction::MaximumChain ? maximum_of(result, taps[tap]) : result + taps[tap];
        }
        return result;
    }
}

// Windows that read only the image itself (no padding) fold a whole output
// row at a time, tap by tap, so the inner loop runs across outputs; each
// output still sees its taps in row-major order.
template <Reduction R, Element T>
void fold_row(const WindowGeometry& g, const T* pixels, std::size_t oh, T* out) {
    for (std::size_t kh = 0; kh < g.size[0]; ++kh) {
        const T* line = pixels + (oh * g.step[0] + kh * g.dilation[0]) * g.extent[1];
        for (std::size_t kw = 0; kw < g.size[1]; ++kw) {
            const T* taps = line + kw * g.dilation[1];
            const std::size_t step = g.step[1];
            if (kh == 0 && kw == 0) {
                for (std::size_t ow = 0; ow < g.count[1]; ++ow) {
                    out[ow] = taps[ow * step];
                }
            } else if constexpr (R == Reduction::MaximumChain) {
                for (std::size_t ow = 0; ow < g.count[1]; ++ow) {
                    out[ow] = maximum_of(out[ow], taps[ow * step]);
                }
            } else {
                for (std::size_t ow = 0; ow < g.count[1]; ++ow) {
                    out[ow] = out[ow] + taps[ow * step];
                }
            }
        }
    }
}

// fold_row for KH x KW windows that tile the image (step == size, no
// dilation, no padding): the same taps in the same order, with the sizes
// constants and a window's taps adjacent, so the loop over a row's windows
// runs in vector lanes.
template <Reduction R, Element T, std::size_t KH, std::size_t KW>
void fold_tiling_row(const WindowGeometry& g, const T* pixels, std::size_t oh, T* out) {
    const std::size_t width = g.extent[1];
    const T* image = pixels + oh * KH * width;
    for (std::size_t ow = 0; ow < g.count[1]; ++ow) {
        T folded = image[ow * KW];
        for (std::size_t k = 1; k < KH * KW; ++k) {
            const T tap = image[(k / KW) * width + ow * KW + k % KW];
            if constexpr (R == Reduction::MaximumChain) {
                folded = maximum_of(folded, tap);
            } else {
                folded = folded + tap;
            }
        }
        out[ow] = folded;
    }
}

template <Reduction R, Element T>
using RowFold = void (*)(const WindowGeometry&, const T*, std::size_t, T*);

// How a row of windows inside the image is folded: by the tiling kernel of
// their sizes where there is one, else by fold_row.
template <Reduction R, Element T>
RowFold<R, T> row_fold(const WindowGeometry& g) {
    const bool tiling = windows_tile(g);
    if (tiling && g.size == std::array<std::size_t, 2>{2, 2}) {
        return fold_tiling_row<R, T, 2, 2>;
    }
    if (tiling && g.size == std::array<std::size_t, 2>{3, 3}) {
        return fold_tiling_row<R, T, 3, 3>;
    }
    return fold_row<R, T>;
}

template <Reduction R, Element T>
void reduce_planes(const WindowGeometry& g, const T* image, T* out) {
    const std::size_t plane = g.extent[0] * g.extent[1];
    const bool unpadded =
        g.pad_before[0] == 0 && g.pad_before[1] == 0 &&
        (g.count[0] - 1) * g.step[0] + (g.size[0] - 1) * g.dilation[0] < g.extent[0] &&
        (g.count[1] - 1) * g.step[1] + (g.size[1] - 1) * g.dilation[1] < g.extent[1];
    const RowFold<R, T> fold = row_fold<R, T>(g);
    for_each_plane(g.batch * g.channels, g.outputs() * g.taps(), [&](std::size_t p) {
        thread_local std::vector<T> taps;
        taps.resize(g.taps());
        const T* pixels = image + p * plane;
        T* row = out + p * g.outputs();
        for (std::size_t oh = 0; oh < g.count[0]; ++oh) {
            if (R != Reduction::StripedSum && unpadded) {
                fold(g, pixels, oh, row);
                row += g.count[1];
                continue;
            }
            for (std::size_t ow = 0; ow < g.count[1]; ++ow) {
                gather_taps(g, pixels, oh, ow, taps.data());
                *row++ = reduce_taps<R>(taps.data(), taps.size());
            }
        }
    });
}

std::optional<Match> match_pooling(const SpecView& spec, std::uint32_t root) {
    std::optional<Chain> chain = folded_taps(spec, root);
    if (!chain) {
        chain = summed_taps(spec, root);
    }
    if (!chain) {
        return std::nullopt;
    }
    std::optional<ImageWindows> windows = pooling_windows(spec, chain->windows);
    if (!windows) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> nodes = windows->nodes;
    nodes.insert(nodes.end(), chain->nodes.begin(), chain->nodes.end());
    std::sort(nodes.begin(), nodes.end());
    return Match{PatternKind::ReduceWindow,
                 root,
                 std::move(nodes),
                 {root},
                 {windows->image},
                 ReduceWindowGeometry{windows->geometry, chain->reduction}};
}

template <Element T>
void pooling_kernel(const Match& match,
                    std::span<const T* const> inputs,
                    std::span<T* const> results) {
    const auto& geometry = match.geometry_as<ReduceWindowGeometry>();
    T* out = results[0];
    switch (geometry.reduction) {
        case Reduction::MaximumChain:
            return reduce_planes<Reduction::MaximumChain>(geometry.window, inputs[0], out);
        case Reduction::AddChain:
            return reduce_planes<Reduction::AddChain>(geometry.window, inputs[0], out);
        case Reduction::StripedSum:
            return reduce_planes<Reduction::StripedSum>(geometry.window, inputs[0], out);
    }
}

// A stablehlo.reduce_window of the image zero-padded explicitly (the matched Pad
// pads with +0, while reduce_window would pad with its init value).
std::vector<HloValue> raise_pooling(HloBuilder& build, const Match& match, const RaiseContext&) {
    const auto& r = match.geometry_as<ReduceWindowGeometry>();
    const WindowGeometry& g = r.window;
    const FittedImage fitted = fitted_image(build, build.value_of(match.inputs[0]), g);
    HloValue padded = fitted.image;
    for (std::size_t d = 0; d < 2; ++d) {
        if (fitted.padding[d][0] != 0 || fitted.padding[d][1] != 0) {
            padded = build.pad(padded, 2 + d, fitted.padding[d][0], fitted.padding[d][1], 0);
        }
    }
    const ReduceWindowLayout window{{1, 1, g.size[0], g.size[1]},
                                    {1, 1, g.step[0], g.step[1]},
                                    {1, 1, g.dilation[0], g.dilation[1]}};
    if (r.reduction == Reduction::MaximumChain) {
        return {build.reduce_window(
            padded, -std::numeric_limits<double>::infinity(), "stablehlo.maximum", window)};
    }
    return {build.reduce_window(padded, -0.0, "stablehlo.add", window)};
}

}  // namespace

PatternRow reduce_window_row() {
    return {.kind = PatternKind::ReduceWindow,
            .match = match_pooling,
            .kernel_f32 = pooling_kernel<float>,
            .kernel_f64 = pooling_kernel<double>,
            .raises = raises_every_match,
            .raise = raise_pooling};
}

}  // namespace topos::detail
