// A convolution's image gradient (a WindowFold in its product form: the
// gradient [N*OH*OW, O] times the filters' transpose, folded onto the image's
// windows) by oneDNN's convolution_backward_data, which sums each image
// element's O*KH*KW products in its own order.
#include "backend/onednn/onednn_convolutions.hpp"
#include "backend/onednn/onednn_support.hpp"

namespace topos::detail::onednn {
namespace {

struct ImageGradient {
    ConvolutionLayouts plan;
    dnnl::convolution_backward_data::primitive_desc chosen;
    dnnl::convolution_backward_data primitive;
    std::optional<Reorder> gradient_in, filters_in, image_out;
};

std::unique_ptr<ImageGradient> create(const WindowGeometry& g, std::size_t columns) {
    const ConvolutionLayouts plan = convolution_layouts(g, columns);
    const auto chosen = gradient_convolution<dnnl::convolution_backward_data>(plan);
    return std::make_unique<ImageGradient>(
        ImageGradient{plan,
                      chosen,
                      dnnl::convolution_backward_data(chosen),
                      reorder_between(plan.result, chosen.diff_dst_desc()),
                      reorder_between(plan.filters, chosen.weights_desc()),
                      reorder_between(chosen.diff_src_desc(), plan.image)});
}

PrimitiveCache<ImageGradient>& made() {
    static PrimitiveCache<ImageGradient> cache;
    return cache;
}

// Images [first, first + count) of the batch, on the calling thread.
void slice_gradient(const WindowGeometry& g,
                    std::size_t columns,
                    std::size_t first,
                    std::size_t count,
                    const float* gradient,
                    const float* filters,
                    float* result) {
    const ImageGradient& c = made().get(with_batch(g, count), columns, create);
    thread_local std::vector<float> gradient_buffer, filter_buffer, image_buffer;
    const std::size_t image_size = g.channels * g.extent[0] * g.extent[1];
    const memory gradients =
        in_layout(c.gradient_in,
                  over(c.plan.result, gradient + first * g.outputs() * columns),
                  gradient_buffer);
    const memory weights = in_layout(c.filters_in, over(c.plan.filters, filters), filter_buffer);
    const memory images = over(c.plan.image, result + first * image_size);
    const memory destination =
        result_memory(c.image_out, c.chosen.diff_src_desc(), images, image_buffer);
    execute(c.primitive,
            c.chosen.scratchpad_desc(),
            {{DNNL_ARG_DIFF_DST, gradients},
             {DNNL_ARG_WEIGHTS, weights},
             {DNNL_ARG_DIFF_SRC, destination}});
    finish_result(c.image_out, destination, images);
}

}  // namespace

void create_image_gradient(const WindowGeometry& g, std::size_t columns) {
    made().get(g, columns, create);
}

void image_gradient(const WindowGeometry& g,
                    std::size_t columns,
                    const float* gradient,
                    const float* filters,
                    float* result) {
    for_each_slice(
        g.batch, batch_slices(g, columns), [&](std::size_t, std::size_t first, std::size_t count) {
            slice_gradient(g, columns, first, count, gradient, filters, result);
        });
}

}  // namespace topos::detail::onednn
