// The oneDNN backend (TOPOS_ENABLE_ONEDNN): elected convolutions of float
// tensors under Numerics::Fast (onednn_convolutions.hpp): the forward product
// (WindowProduct), the filter gradient (WindowProduct, transposed) and the
// image gradient (WindowFold in its product form). Its tolerance: each result
// within 2 k eps sum_p |a_p b_p| of the exact one, k the products a result
// sums (C*KH*KW forward, N*OH*OW for a filter, O*KH*KW for an image element),
// checked against the reference in tests. Primitives are created once per
// geometry (at lowering) and kept.
#include "backend/onednn/onednn_convolutions.hpp"
#include "backend/onednn/onednn_support.hpp"
#include "pattern/window_fold.hpp"
#include "pattern/window_product.hpp"
#include "plan/backend_seam.hpp"

namespace topos::detail {
namespace {

// Below this many multiply-adds the reference kernel is as fast.
constexpr std::size_t smallest_convolution = std::size_t{1} << 16;

// Below this depth (C*KH*KW: a first layer's one or three channels) the
// reference's direct kernels are faster (bench/fusion_bench's topos_fast
// against topos_fused with this rule lowered to 1, interleaved: a LeNet first
// layer, depth 9, 262-302 us against 173-227; the digits CNN's, 130-146
// against 84-90).
constexpr std::size_t shallowest_convolution = 32;

// Below this many multiply-adds the reference's gradient kernels are faster.
constexpr std::size_t smallest_gradient = std::size_t{1} << 24;

// Whether oneDNN has primitives for the geometry: created now, kept for the runs.
template <class Create>
bool created(Create create) {
    try {
        create();
    } catch (const dnnl::error&) {
        return false;
    }
    return true;
}

bool serves_product(const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    const std::size_t products = onednn::multiply_adds(g, w.columns);
    if (!onednn::padding_fits(g)) {
        return false;
    }
    if (w.transposed) {
        return products >= smallest_gradient &&
               created([&] { onednn::create_filter_gradient(g, w.columns); });
    }
    return products >= smallest_convolution && g.channels * g.taps() >= shallowest_convolution &&
           created([&] { onednn::create_forward(g, w.columns); });
}

bool serves_fold(const WindowFoldGeometry& f) {
    const WindowGeometry& g = f.window;
    return f.product && onednn::padding_fits(g) &&
           onednn::multiply_adds(g, f.columns) >= smallest_gradient &&
           created([&] { onednn::create_image_gradient(g, f.columns); });
}

bool serves_match(const Match& match, Precision precision) {
    if (precision != Precision::F32) {
        return false;
    }
    if (const auto* product = match.geometry_if<WindowProductGeometry>()) {
        return serves_product(*product);
    }
    if (const auto* fold = match.geometry_if<WindowFoldGeometry>()) {
        return serves_fold(*fold);
    }
    return false;
}

void convolve(const Match& match,
              std::span<const float* const> inputs,
              std::span<float* const> results) {
    if (const auto* fold = match.geometry_if<WindowFoldGeometry>()) {
        onednn::image_gradient(fold->window, fold->columns, inputs[0], inputs[1], results[0]);
        return;
    }
    const auto& w = match.geometry_as<WindowProductGeometry>();
    if (w.transposed) {
        onednn::filter_gradient(w.window, w.columns, inputs[0], inputs[1], results[0]);
    } else {
        onednn::convolve(w.window, w.columns, inputs[0], inputs[1], results[0]);
    }
}

}  // namespace

const Server& onednn_server() {
    // No single node, and no double tensor: elected float convolutions only.
    static const Server server{.name = "onednn",
                               .fidelity = Fidelity::Reordered,
                               .formulas = {"WindowProduct", "WindowFold"},
                               .serves = nullptr,
                               .kernel_f32 = nullptr,
                               .kernel_f64 = nullptr,
                               .device = nullptr,
                               .runs_own_threads = true,
                               .serves_match = serves_match,
                               .match_kernel_f32 = convolve,
                               .match_kernel_f64 = nullptr};
    return server;
}

}  // namespace topos::detail
