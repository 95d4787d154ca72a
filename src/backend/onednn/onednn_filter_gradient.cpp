// A convolution's filter gradient (a WindowProduct in its transposed form: the
// image's windows^T times the gradient [N*OH*OW, O]) by oneDNN's
// convolution_backward_weights, which sums each filter element's N*OH*OW
// products in its own order. Each slice of the batch sums its own images'
// products; the slices' sums are then added in slice order.
#include "backend/onednn/onednn_convolutions.hpp"
#include "backend/onednn/onednn_support.hpp"

namespace topos::detail::onednn {
namespace {

struct FilterGradient {
    ConvolutionLayouts plan;
    dnnl::convolution_backward_weights::primitive_desc chosen;
    dnnl::convolution_backward_weights primitive;
    std::optional<Reorder> image_in, gradient_in, filters_out;
};

std::unique_ptr<FilterGradient> create(const WindowGeometry& g, std::size_t columns) {
    const ConvolutionLayouts plan = convolution_layouts(g, columns);
    const auto chosen = gradient_convolution<dnnl::convolution_backward_weights>(plan);
    return std::make_unique<FilterGradient>(
        FilterGradient{plan,
                       chosen,
                       dnnl::convolution_backward_weights(chosen),
                       reorder_between(plan.image, chosen.src_desc()),
                       reorder_between(plan.result, chosen.diff_dst_desc()),
                       reorder_between(chosen.diff_weights_desc(), plan.filters)});
}

PrimitiveCache<FilterGradient>& made() {
    static PrimitiveCache<FilterGradient> cache;
    return cache;
}

// The products of images [first, first + count) summed into `sums` ([C*KH*KW,
// O]), on the calling thread.
void slice_gradient(const WindowGeometry& g,
                    std::size_t columns,
                    std::size_t first,
                    std::size_t count,
                    const float* image,
                    const float* gradient,
                    float* sums) {
    const FilterGradient& c = made().get(with_batch(g, count), columns, create);
    thread_local std::vector<float> image_buffer, gradient_buffer, filter_buffer;
    const std::size_t image_size = g.channels * g.extent[0] * g.extent[1];
    const memory source =
        in_layout(c.image_in, over(c.plan.image, image + first * image_size), image_buffer);
    const memory gradients =
        in_layout(c.gradient_in,
                  over(c.plan.result, gradient + first * g.outputs() * columns),
                  gradient_buffer);
    const memory filters = over(c.plan.filters, sums);
    const memory destination =
        result_memory(c.filters_out, c.chosen.diff_weights_desc(), filters, filter_buffer);
    execute(c.primitive,
            c.chosen.scratchpad_desc(),
            {{DNNL_ARG_SRC, source},
             {DNNL_ARG_DIFF_DST, gradients},
             {DNNL_ARG_DIFF_WEIGHTS, destination}});
    finish_result(c.filters_out, destination, filters);
}

}  // namespace

void create_filter_gradient(const WindowGeometry& g, std::size_t columns) {
    made().get(g, columns, create);
}

void filter_gradient(const WindowGeometry& g,
                     std::size_t columns,
                     const float* image,
                     const float* gradient,
                     float* result) {
    const std::size_t parts = batch_slices(g, columns);
    const std::size_t size = g.channels * g.taps() * columns;
    std::vector<std::vector<float>> partial_sums(parts - 1, std::vector<float>(size));
    for_each_slice(g.batch, parts, [&](std::size_t part, std::size_t first, std::size_t count) {
        float* sums = part == 0 ? result : partial_sums[part - 1].data();
        slice_gradient(g, columns, first, count, image, gradient, sums);
    });
    for (const std::vector<float>& sums : partial_sums) {
        for (std::size_t i = 0; i < size; ++i) {
            result[i] += sums[i];
        }
    }
}

}  // namespace topos::detail::onednn
