// What the oneDNN backend's convolutions share: the engine, the plan's
// layouts of a convolution as oneDNN descriptors, reorders, primitives kept
// per geometry, and the batch split among topos's threads.
#pragma once

#include "core/thread_pool.hpp"
#include "pattern/structure.hpp"

#include <array>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace topos::detail::onednn {

using dnnl::memory;
using Dims = memory::dims;

const dnnl::engine& cpu();

// Every primitive keeps its scratch memory in the calling thread's buffer
// (scratchpad_mode::user), so one primitive may run on several threads at once.
dnnl::primitive_attr user_scratchpad();

// Whether oneDNN's padding (before and after the image, on both axes) gives
// exactly the geometry's window counts.
bool padding_fits(const WindowGeometry& g);

// A convolution of the plan: the image [N, C, H, W] (NCHW), the filters as the
// [C, KH, KW, O] matrix, the result [N, OH, OW, O] (NHWC, the rows of the
// [N*OH*OW, O] product), with the geometry's steps, dilation and padding.
struct ConvolutionLayouts {
    memory::desc image;
    memory::desc filters;
    memory::desc result;
    Dims strides, dilation, before, after;
};

ConvolutionLayouts convolution_layouts(const WindowGeometry& g, std::size_t columns);

// The same dimensions in a layout oneDNN chooses.
memory::desc any_layout(const memory::desc& d);

// The same dimensions channels last (NHWC).
memory::desc channels_last(const memory::desc& d);

// The description of a direct convolution of these layouts in oneDNN's terms
// (`Description`: convolution_forward::desc, convolution_backward_data::desc
// or convolution_backward_weights::desc): the activations channels last, the
// filters in a layout oneDNN chooses. A forward one takes its propagation kind
// first, in `leading`.
template <class Description, class... Leading>
Description convolution_description(const ConvolutionLayouts& plan, Leading... leading) {
    return Description(leading...,
                       dnnl::algorithm::convolution_direct,
                       channels_last(plan.image),
                       any_layout(plan.filters),
                       plan.result,
                       plan.strides,
                       plan.dilation,
                       plan.before,
                       plan.after);
}

// The forward convolution of these layouts: what the gradient primitives are
// created against.
dnnl::convolution_forward::primitive_desc forward_convolution(const ConvolutionLayouts& plan,
                                                              dnnl::prop_kind kind);

// The gradient convolution `Gradient` (convolution_backward_data or
// convolution_backward_weights) of these layouts, created against the
// forward one.
template <class Gradient>
typename Gradient::primitive_desc gradient_convolution(const ConvolutionLayouts& plan) {
    const auto forward = forward_convolution(plan, dnnl::prop_kind::forward_training);
    return {
        convolution_description<typename Gradient::desc>(plan), user_scratchpad(), cpu(), forward};
}

// A reorder between two layouts, when they differ.
struct Reorder {
    dnnl::reorder::primitive_desc chosen;
    dnnl::reorder primitive;
};

std::optional<Reorder> reorder_between(const memory::desc& from, const memory::desc& to);

// oneDNN reads its inputs through non-const handles; it never writes them.
memory over(const memory::desc& layout, const float* data);
memory over(const memory::desc& layout, float* data);

// This thread's buffer, grown to hold `layout`.
float* buffer_for(std::vector<float>& buffer, const memory::desc& layout);

// Runs `primitive` with its scratchpad in this thread's buffer.
void execute(const dnnl::primitive& primitive,
             const memory::desc& scratchpad,
             std::unordered_map<int, memory> arguments);

// `from` reordered into the reorder's layout (in `buffer`), or `from` itself
// where no reorder stands between.
memory in_layout(const std::optional<Reorder>& reorder,
                 const memory& from,
                 std::vector<float>& buffer);

// `from` in the primitive's layout `chosen`, written to `to` in the plan's:
// through the reorder where one stands between them. `to` is where the
// primitive writes: `to` itself, or `buffer` to be reordered from.
memory result_memory(const std::optional<Reorder>& reorder,
                     const memory::desc& chosen,
                     const memory& to,
                     std::vector<float>& buffer);
void finish_result(const std::optional<Reorder>& reorder, const memory& written, const memory& to);

// oneDNN runs on the library's pool, a slice of the batch a thread, each call
// on one OpenMP thread: two thread pools on the same cores would take turns
// (measured: a Fast LeNet step 1.6 times slower). Sets the calling thread's.
void one_openmp_thread();

// What a geometry's primitives are known by.
using GeometryKey = std::tuple<std::size_t,
                               std::size_t,
                               std::array<std::size_t, 2>,
                               std::array<std::size_t, 2>,
                               std::array<std::size_t, 2>,
                               std::array<std::size_t, 2>,
                               std::array<std::size_t, 2>,
                               std::size_t>;

GeometryKey key_of(const WindowGeometry& g, std::size_t columns);

// The primitives `Made` of each geometry, created on first use and kept. A
// primitive keeps the thread count it was created under: one.
template <class Made>
class PrimitiveCache {
public:
    template <class Create>
    const Made& get(const WindowGeometry& g, std::size_t columns, Create create) {
        one_openmp_thread();
        const std::lock_guard lock(guard_);
        std::unique_ptr<Made>& slot = made_[key_of(g, columns)];
        if (!slot) {
            slot = create(g, columns);
        }
        return *slot;
    }

private:
    std::mutex guard_;
    std::map<GeometryKey, std::unique_ptr<Made>> made_;
};

// The multiply-adds of a convolution of this geometry into `columns` filters.
std::size_t multiply_adds(const WindowGeometry& g, std::size_t columns);

// How many slices of the batch a convolution is split into: one below 2^20
// multiply-adds, else one a thread of the pool, at most one an image.
std::size_t batch_slices(const WindowGeometry& g, std::size_t columns);

// The slice with `count` images: what its primitives are created for.
WindowGeometry with_batch(WindowGeometry g, std::size_t count);

// Runs slice(part, first image, image count) for each of `parts` slices of the
// batch on the pool; the first failure (oneDNN cannot create a slice's
// primitives) is rethrown after them.
template <class Slice>
void for_each_slice(std::size_t batch, std::size_t parts, const Slice& slice) {
    std::vector<std::exception_ptr> failures(parts);
    ThreadPool::instance().run(parts, [&](std::size_t part) {
        const std::size_t first = part * batch / parts;
        const std::size_t end = (part + 1) * batch / parts;
        try {
            slice(part, first, end - first);
        } catch (...) {
            failures[part] = std::current_exception();
        }
    });
    for (const std::exception_ptr& failure : failures) {
        if (failure) {
            std::rethrow_exception(failure);
        }
    }
}

}  // namespace topos::detail::onednn
