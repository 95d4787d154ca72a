// MaxPoolGradient: the gradient of a max pooling routed to its windows'
// maxima and summed back onto the image in one pass, from the image and the
// pooled gradient. The recorded derivative of a pooling's left fold of
// Maximum nodes, m_k = Maximum(m_(k-1), t_k) over the taps t_k = Narrow(W, k)
// of its windows W, is, with g_(S-1) the pooled gradient (S taps):
//   a_k = Mul(g_k, Compare(m_(k-1), t_k, GE)),  g_(k-1) = a_k,
//   v_k = Sub(g_k, a_k) for k >= 1,  v_0 = a_1,
//   routed = (...((p_(S-1) + p_(S-2)) + p_(S-3)) ... ) + p_0,
//   p_k = Pad(v_k, axis 4, k before, S - 1 - k after),
// then Reshape [N, C, OH, OW, KH, KW], Permute [0, 1, 2, 4, 3, 5] and the
// two Folds (and Narrows) of window_taps.hpp. The kernel computes those
// operations per window, across blocks of windows, so signed zeros, NaNs and
// ties come out as the unfused plan's. Only the sum of pads is left out: its
// tap j is v_j + 0 (+0 from every other pad), which differs from v_j only in
// turning -0 into +0, and the Folds add each tap to a sum that starts at +0
// and so is never -0, where adding -0 or +0 gives the same bits. The match
// covers the pooling's own windows, taps and running maxima as interior
// values, so the forward ReduceWindow election can fuse them too. In a bf16
// plan every value routed is a tap of the pooled gradient or zero, which
// rounding keeps; only the first Fold's sums, where windows overlap, round.
#include "pattern/catalog.hpp"
#include "pattern/window_taps.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace topos::detail {
namespace {

struct MaxPoolGradientGeometry {
    WindowGeometry window;
    std::size_t folded_width = 0;
};

struct Routing {
    std::uint32_t gradient;
    std::uint32_t windows;
    std::vector<std::uint32_t> nodes;
};

// The pads p_0 .. p_(S-1) of the sum of routed taps, and its Adds.
std::optional<std::vector<std::uint32_t>> routed_pads(const SpecView& spec,
                                                      std::uint32_t routed,
                                                      std::size_t taps,
                                                      std::vector<std::uint32_t>& nodes) {
    std::vector<std::uint32_t> pads(taps);
    std::uint32_t at = routed;
    for (std::size_t k = 0; k + 1 < taps; ++k) {
        const Node* add = spec.as(at, Opcode::Add);
        if (add == nullptr) {
            return std::nullopt;
        }
        nodes.push_back(at);
        pads[k] = add->operands()[1];
        at = add->operands()[0];
    }
    pads[taps - 1] = at;
    for (std::size_t k = 0; k < taps; ++k) {
        const Node* pad = spec.as(pads[k], Opcode::Pad);
        if (pad == nullptr ||
            pad->attributes_as<PadAttributes>() != PadAttributes{4, k, taps - 1 - k, 0}) {
            return std::nullopt;
        }
        nodes.push_back(pads[k]);
        pads[k] = pad->operands()[0];
    }
    return pads;
}

// Compare(m_(k-1), t_k, GE) for k = 1 .. S-1, whose operands must be the
// pooling's taps and running maxima.
bool compares_running_maxima(const SpecView& spec,
                             const std::vector<std::uint32_t>& compares,
                             Routing& routing) {
    const std::size_t taps = compares.size();
    const Node* last = spec.as(spec[compares[taps - 1]].operands()[1], Opcode::Narrow);
    if (last == nullptr) {
        return false;
    }
    routing.windows = last->operands()[0];
    for (std::size_t k = 1; k < taps; ++k) {
        const Node& compare = spec[compares[k]];
        const std::uint32_t running = compare.operands()[0];
        if (!is_tap(spec, compare.operands()[1], routing.windows, k)) {
            return false;
        }
        routing.nodes.push_back(compare.operands()[1]);
        if (k == 1) {
            if (!is_tap(spec, running, routing.windows, 0)) {
                return false;
            }
        } else {
            const Node* maximum = spec.as(running, Opcode::Maximum);
            const Node& before = spec[compares[k - 1]];
            if (maximum == nullptr || maximum->operands()[0] != before.operands()[0] ||
                maximum->operands()[1] != before.operands()[1]) {
                return false;
            }
        }
        routing.nodes.push_back(running);
    }
    return true;
}

// The routing of the gradient through the pooling's Maximum nodes, from the
// [N, C, OH, OW, S] sum of routed taps.
std::optional<Routing> routing_of(const SpecView& spec, std::uint32_t routed, std::size_t taps) {
    Routing routing{};
    std::optional<std::vector<std::uint32_t>> parts =
        routed_pads(spec, routed, taps, routing.nodes);
    if (!parts) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> compares(taps);
    std::uint32_t kept = 0;  // a_(k+1)
    for (std::size_t k = taps - 1; k >= 1; --k) {
        const Node* sub = spec.as((*parts)[k], Opcode::Sub);
        const Node* mul = sub ? spec.as(sub->operands()[1], Opcode::Mul) : nullptr;
        if (mul == nullptr || mul->operands()[0] != sub->operands()[0] ||
            (k + 1 < taps && sub->operands()[0] != kept)) {
            return std::nullopt;
        }
        const Node* compare = spec.as(mul->operands()[1], Opcode::Compare);
        if (compare == nullptr ||
            compare->attributes_as<CompareAttributes>().direction != Comparison::GreaterEqual) {
            return std::nullopt;
        }
        if (k + 1 == taps) {
            routing.gradient = sub->operands()[0];
        }
        kept = sub->operands()[1];
        compares[k] = mul->operands()[1];
        routing.nodes.insert(routing.nodes.end(), {(*parts)[k], kept, compares[k]});
    }
    if ((*parts)[0] != kept || !compares_running_maxima(spec, compares, routing)) {
        return std::nullopt;
    }
    return routing;
}

std::optional<Match> match_max_pool_gradient(const SpecView& spec, std::uint32_t root) {
    std::optional<FoldedWindows> folded = folded_windows(spec, root);
    if (!folded || !is_permute(spec, folded->taps, {0, 1, 2, 4, 3, 5})) {
        return std::nullopt;
    }
    const WindowGeometry& g = folded->geometry;
    const std::uint32_t laid_out = spec[folded->taps].operands()[0];
    const Node* reshape = spec.as(laid_out, Opcode::Reshape);
    if (g.taps() < 2 || reshape == nullptr ||
        reshape->shape() !=
            Shape{g.batch, g.channels, g.count[0], g.count[1], g.size[0], g.size[1]}) {
        return std::nullopt;
    }
    const std::uint32_t routed = reshape->operands()[0];
    if (spec[routed].shape() != Shape{g.batch, g.channels, g.count[0], g.count[1], g.taps()}) {
        return std::nullopt;
    }
    std::optional<Routing> routing = routing_of(spec, routed, g.taps());
    std::optional<ImageWindows> windows =
        routing ? pooling_windows(spec, routing->windows) : std::nullopt;
    if (!windows || windows->geometry != g) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> nodes = folded->nodes;
    nodes.insert(nodes.end(), {folded->taps, laid_out});
    nodes.insert(nodes.end(), routing->nodes.begin(), routing->nodes.end());
    nodes.insert(nodes.end(), windows->nodes.begin(), windows->nodes.end());
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return Match{PatternKind::MaxPoolGradient,
                 root,
                 std::move(nodes),
                 {root},
                 {windows->image, routing->gradient},
                 MaxPoolGradientGeometry{g, folded->folded[1]}};
}

// A block of windows: their taps (laid out [k][o], k the tap, o the window)
// and pooled gradients to the routed taps v_k, into `parts`, by the recorded
// operations in their order, each loop running across the windows. `masks`
// and `parts` have room for count * windows values, `running` for windows.
template <Element T>
void route_to_maxima(const T* taps,
                     const T* gradient,
                     std::size_t count,
                     std::size_t windows,
                     T* masks,
                     T* parts,
                     T* running) {
    std::copy_n(taps, windows, running);
    for (std::size_t k = 1; k < count; ++k) {
        const T* tap = taps + k * windows;
        T* mask = masks + k * windows;
        for (std::size_t o = 0; o < windows; ++o) {
            mask[o] = running[o] >= tap[o] ? T{1} : T{0};
            running[o] = maximum_of(running[o], tap[o]);
        }
    }
    T* flowing = running;
    std::copy_n(gradient, windows, flowing);
    for (std::size_t k = count - 1; k >= 1; --k) {
        const T* mask = masks + k * windows;
        T* part = parts + k * windows;
        for (std::size_t o = 0; o < windows; ++o) {
            const T kept = flowing[o] * mask[o];
            part[o] = flowing[o] - kept;
            flowing[o] = kept;
        }
    }
    std::copy_n(flowing, windows, parts);
}

// One plane of KH x KW windows that tile it, routed straight from the image
// to the image gradient with the recorded operations in their order: the
// masks m_(k-1) >= t_k over the running maxima, then the routed taps from
// the last down, each written once as +0 + v. The taps of a window row are
// adjacent and the sizes are constants, so each loop over the windows of a
// row runs in vector lanes.
template <Element T, std::size_t KH, std::size_t KW>
void route_tiling_windows(const WindowGeometry& g, const T* pixels, const T* gradient, T* out) {
    constexpr std::size_t taps = KH * KW;
    const std::size_t width = g.extent[1];
    const std::size_t covered = g.count[1] * KW;
    for (std::size_t oh = 0; oh < g.count[0]; ++oh) {
        const T* image = pixels + oh * KH * width;
        T* routed = out + oh * KH * width;
        const T* pooled = gradient + oh * g.count[1];
        for (std::size_t ow = 0; ow < g.count[1]; ++ow) {
            std::array<T, taps> mask{};
            T running = image[ow * KW];
            for (std::size_t k = 1; k < taps; ++k) {
                const T tap = image[(k / KW) * width + ow * KW + k % KW];
                mask[k] = running >= tap ? T{1} : T{0};
                running = maximum_of(running, tap);
            }
            T flowing = pooled[ow];
            for (std::size_t k = taps - 1; k >= 1; --k) {
                const T kept = flowing * mask[k];
                // flowing - flowing * mask is never -0 (x - x is +0, and so is
                // -0 - -0), so +0 + v is v itself.
                routed[(k / KW) * width + ow * KW + k % KW] = flowing - kept;
                flowing = kept;
            }
            routed[ow * KW] = T{0} + flowing;
        }
        for (std::size_t kh = 0; kh < KH && covered < width; ++kh) {
            zero_short(routed + kh * width + covered, width - covered);
        }
    }
    const std::size_t rows = g.count[0] * KH;
    zero_short(out + rows * width, (g.extent[0] - rows) * width);
}

template <Element T>
using TilingKernel = void (*)(const WindowGeometry&, const T*, const T*, T*);

// The tiling kernel for these windows' sizes, or null where there is none.
template <Element T>
TilingKernel<T> tiling_kernel(const WindowGeometry& g) {
    if (!windows_tile(g)) {
        return nullptr;
    }
    if (g.size == std::array<std::size_t, 2>{2, 2}) {
        return route_tiling_windows<T, 2, 2>;
    }
    if (g.size == std::array<std::size_t, 2>{3, 3}) {
        return route_tiling_windows<T, 3, 3>;
    }
    return nullptr;
}

// Planes are routed in blocks of at least this many windows, so that the
// routing's loops run long even over small images.
constexpr std::size_t windows_per_block = 256;

template <Element T, Interior interior = Interior::AsComputed>
void max_pool_gradient_kernel(const Match& match,
                              std::span<const T* const> inputs,
                              std::span<T* const> results) {
    const auto& geometry = match.geometry_as<MaxPoolGradientGeometry>();
    const WindowGeometry& g = geometry.window;
    const std::size_t plane = g.extent[0] * g.extent[1];
    const std::size_t planes = g.batch * g.channels;
    if (const auto route = tiling_kernel<T>(g)) {
        for_each_plane(planes, plane, [&](std::size_t p) {
            route(g, inputs[0] + p * plane, inputs[1] + p * g.outputs(), results[0] + p * plane);
        });
        return;
    }
    const std::size_t per_block = std::max<std::size_t>(1, windows_per_block / g.outputs());
    const std::size_t blocks = (planes + per_block - 1) / per_block;
    for_each_plane(blocks, per_block * g.outputs() * g.taps(), [&](std::size_t block) {
        const std::size_t first = block * per_block;
        const std::size_t count = std::min(per_block, planes - first);
        const std::size_t windows = count * g.outputs();
        const std::size_t all_taps = g.taps() * windows;
        thread_local std::vector<T> scratch;
        scratch.resize(3 * all_taps + windows + g.size[0] * geometry.folded_width);
        T* taps = scratch.data();
        T* masks = taps + all_taps;
        T* parts = masks + all_taps;
        T* running = parts + all_taps;
        T* line = running + windows;
        for (std::size_t p = 0; p < count; ++p) {
            const T* pixels = inputs[0] + (first + p) * plane;
            for (std::size_t oh = 0; oh < g.count[0]; ++oh) {
                gather_window_row(g, pixels, oh, taps + p * g.outputs() + oh * g.count[1], windows);
            }
        }
        const T* gradient = inputs[1] + first * g.outputs();
        route_to_maxima(taps, gradient, g.taps(), windows, masks, parts, running);
        for (std::size_t p = 0; p < count; ++p) {
            T* out = results[0] + (first + p) * plane;
            zero_short(out, plane);
            for (std::size_t oh = 0; oh < g.count[0]; ++oh) {
                const T* row = parts + p * g.outputs() + oh * g.count[1];
                fold_window_row<T, interior>(g, geometry.folded_width, oh, row, windows, line, out);
            }
        }
    });
}

}  // namespace

// The members emit their own operations.
PatternRow max_pool_gradient_row() {
    return {.kind = PatternKind::MaxPoolGradient,
            .match = match_max_pool_gradient,
            .kernel_f32 = max_pool_gradient_kernel<float>,
            .kernel_f64 = max_pool_gradient_kernel<double>,
            .kernel_bf16_in_float = max_pool_gradient_kernel<float, Interior::RoundedToBf16>};
}

}  // namespace topos::detail
