// The forward convolution (a WindowProduct: [N, C, H, W] image times
// [C*KH*KW, O] filters giving [N*OH*OW, O]) by oneDNN's convolution_forward,
// which sums each output's C*KH*KW products in its own order (blocked,
// vectorised). oneDNN picks its own layouts: the filters, the image and the
// result are reordered from and to the plan's on every run.
#include "backend/onednn/onednn_convolutions.hpp"
#include "backend/onednn/onednn_support.hpp"

namespace topos::detail::onednn {
namespace {

struct Forward {
    ConvolutionLayouts plan;
    dnnl::convolution_forward::primitive_desc chosen;
    dnnl::convolution_forward primitive;
    std::optional<Reorder> image_in, filters_in, result_out;
};

std::unique_ptr<Forward> create(const WindowGeometry& g, std::size_t columns) {
    const ConvolutionLayouts plan = convolution_layouts(g, columns);
    const auto chosen = forward_convolution(plan, dnnl::prop_kind::forward_inference);
    return std::make_unique<Forward>(Forward{plan,
                                             chosen,
                                             dnnl::convolution_forward(chosen),
                                             reorder_between(plan.image, chosen.src_desc()),
                                             reorder_between(plan.filters, chosen.weights_desc()),
                                             reorder_between(chosen.dst_desc(), plan.result)});
}

PrimitiveCache<Forward>& made() {
    static PrimitiveCache<Forward> cache;
    return cache;
}

// Images [first, first + count) of the batch, on the calling thread.
void convolve_slice(const WindowGeometry& g,
                    std::size_t columns,
                    std::size_t first,
                    std::size_t count,
                    const float* image,
                    const float* filters,
                    float* result) {
    const Forward& c = made().get(with_batch(g, count), columns, create);
    thread_local std::vector<float> image_buffer, filter_buffer, result_buffer;
    const std::size_t image_size = g.channels * g.extent[0] * g.extent[1];
    const memory source =
        in_layout(c.image_in, over(c.plan.image, image + first * image_size), image_buffer);
    const memory weights = in_layout(c.filters_in, over(c.plan.filters, filters), filter_buffer);
    const memory results = over(c.plan.result, result + first * g.outputs() * columns);
    const memory destination =
        result_memory(c.result_out, c.chosen.dst_desc(), results, result_buffer);
    execute(c.primitive,
            c.chosen.scratchpad_desc(),
            {{DNNL_ARG_SRC, source}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, destination}});
    finish_result(c.result_out, destination, results);
}

}  // namespace

void create_forward(const WindowGeometry& g, std::size_t columns) {
    made().get(g, columns, create);
}

void convolve(const WindowGeometry& g,
              std::size_t columns,
              const float* image,
              const float* filters,
              float* result) {
    for_each_slice(
        g.batch, batch_slices(g, columns), [&](std::size_t, std::size_t first, std::size_t count) {
            convolve_slice(g, columns, first, count, image, filters, result);
        });
}

}  // namespace topos::detail::onednn
