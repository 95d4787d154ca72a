#include "backend/onednn/onednn_support.hpp"

#include <algorithm>
#include <cstdint>
#include <dlfcn.h>

namespace topos::detail::onednn {
namespace {

memory::dim dim(std::size_t value) {
    return static_cast<memory::dim>(value);
}

// The padding after the image along one axis that makes oneDNN's output
// extent the window count, if there is one.
std::optional<memory::dim> padding_after(const WindowGeometry& g, std::size_t axis) {
    const auto reach = static_cast<std::int64_t>((g.count[axis] - 1) * g.step[axis] +
                                                 (g.size[axis] - 1) * g.dilation[axis] + 1);
    const auto covered = static_cast<std::int64_t>(g.extent[axis] + g.pad_before[axis]);
    const std::int64_t after = std::max<std::int64_t>(0, reach - covered);
    const std::int64_t span =
        covered + after - static_cast<std::int64_t>((g.size[axis] - 1) * g.dilation[axis] + 1);
    if (span < 0 || span / static_cast<std::int64_t>(g.step[axis]) + 1 !=
                        static_cast<std::int64_t>(g.count[axis])) {
        return std::nullopt;
    }
    return after;
}

// Below this many multiply-adds a convolution runs on the calling thread.
constexpr std::size_t parallel_convolution = std::size_t{1} << 20;

}  // namespace

const dnnl::engine& cpu() {
    static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

dnnl::primitive_attr user_scratchpad() {
    dnnl::primitive_attr attributes;
    attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attributes;
}

bool padding_fits(const WindowGeometry& g) {
    return padding_after(g, 0).has_value() && padding_after(g, 1).has_value();
}

ConvolutionLayouts convolution_layouts(const WindowGeometry& g, std::size_t columns) {
    const auto f32 = memory::data_type::f32;
    const Dims image{dim(g.batch), dim(g.channels), dim(g.extent[0]), dim(g.extent[1])};
    const Dims filters{dim(columns), dim(g.channels), dim(g.size[0]), dim(g.size[1])};
    const Dims filter_strides{1, dim(g.taps() * columns), dim(g.size[1] * columns), dim(columns)};
    const Dims result{dim(g.batch), dim(columns), dim(g.count[0]), dim(g.count[1])};
    return {memory::desc(image, f32, memory::format_tag::nchw),
            memory::desc(filters, f32, filter_strides),
            memory::desc(result, f32, memory::format_tag::nhwc),
            {dim(g.step[0]), dim(g.step[1])},
            {dim(g.dilation[0] - 1), dim(g.dilation[1] - 1)},
            {dim(g.pad_before[0]), dim(g.pad_before[1])},
            {*padding_after(g, 0), *padding_after(g, 1)}};
}

memory::desc any_layout(const memory::desc& d) {
    return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any);
}

memory::desc channels_last(const memory::desc& d) {
    return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::nhwc);
}

dnnl::convolution_forward::primitive_desc forward_convolution(const ConvolutionLayouts& plan,
                                                              dnnl::prop_kind kind) {
    return {convolution_description<dnnl::convolution_forward::desc>(plan, kind),
            user_scratchpad(),
            cpu()};
}

std::optional<Reorder> reorder_between(const memory::desc& from, const memory::desc& to) {
    if (from == to) {
        return std::nullopt;
    }
    const dnnl::reorder::primitive_desc chosen(cpu(), from, cpu(), to, user_scratchpad());
    return Reorder{chosen, dnnl::reorder(chosen)};
}

memory over(const memory::desc& layout, const float* data) {
    return memory(layout, cpu(), const_cast<float*>(data));
}

memory over(const memory::desc& layout, float* data) {
    return memory(layout, cpu(), data);
}

float* buffer_for(std::vector<float>& buffer, const memory::desc& layout) {
    buffer.resize((layout.get_size() + sizeof(float) - 1) / sizeof(float));
    return buffer.data();
}

void execute(const dnnl::primitive& primitive,
             const memory::desc& scratchpad,
             std::unordered_map<int, memory> arguments) {
    thread_local dnnl::stream stream(cpu());
    thread_local std::vector<float> scratch;
    if (scratchpad.get_size() > 0) {
        arguments.insert({DNNL_ARG_SCRATCHPAD, over(scratchpad, buffer_for(scratch, scratchpad))});
    }
    primitive.execute(stream, arguments);
    stream.wait();
}

memory in_layout(const std::optional<Reorder>& reorder,
                 const memory& from,
                 std::vector<float>& buffer) {
    if (!reorder) {
        return from;
    }
    memory to = over(reorder->chosen.dst_desc(), buffer_for(buffer, reorder->chosen.dst_desc()));
    execute(reorder->primitive,
            reorder->chosen.scratchpad_desc(),
            {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
    return to;
}

memory result_memory(const std::optional<Reorder>& reorder,
                     const memory::desc& chosen,
                     const memory& to,
                     std::vector<float>& buffer) {
    return reorder ? over(chosen, buffer_for(buffer, chosen)) : to;
}

void finish_result(const std::optional<Reorder>& reorder, const memory& written, const memory& to) {
    if (reorder) {
        execute(reorder->primitive,
                reorder->chosen.scratchpad_desc(),
                {{DNNL_ARG_FROM, written}, {DNNL_ARG_TO, to}});
    }
}

// omp_set_num_threads is looked up at run time, so that topos links no
// OpenMP runtime of its own.
void one_openmp_thread() {
    using SetThreads = void (*)(int);
    static const auto set_threads =
        reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    thread_local bool set = false;
    if (set_threads != nullptr && !set) {
        set_threads(1);
        set = true;
    }
}

GeometryKey key_of(const WindowGeometry& g, std::size_t columns) {
    return {g.batch, g.channels, g.extent, g.pad_before, g.size, g.step, g.dilation, columns};
}

std::size_t multiply_adds(const WindowGeometry& g, std::size_t columns) {
    return g.batch * g.outputs() * g.channels * g.taps() * columns;
}

std::size_t batch_slices(const WindowGeometry& g, std::size_t columns) {
    return multiply_adds(g, columns) < parallel_convolution
               ? 1
               : std::min(g.batch, ThreadPool::instance().thread_count());
}

WindowGeometry with_batch(WindowGeometry g, std::size_t count) {
    g.batch = count;
    return g;
}

}  // namespace topos::detail::onednn
