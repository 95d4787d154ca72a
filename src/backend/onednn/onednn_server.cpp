// The oneDNN backend (TOPOS_ENABLE_ONEDNN): an elected convolution (a forward
// WindowProduct, [N, C, H, W] image times [C*KH*KW, O] filters giving
// [N*OH*OW, O]) of float tensors under Numerics::Fast, by oneDNN's
// convolution, which sums each output's C*KH*KW products in its own order
// (blocked, vectorised). Its tolerance: each output within 2 k eps
// sum_p |a_p b_p| of the exact one, k = C*KH*KW, checked against the
// reference in tests. oneDNN picks its own layouts: the filters, the image and
// the result are reordered from and to the plan's on every run. Primitives
// are created once per geometry (at lowering) and kept.
#include "core/thread_pool.hpp"
#include "pattern/window_product.hpp"
#include "plan/backend_seam.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <dlfcn.h>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace topos::detail {
namespace {

using dnnl::memory;
using Dims = memory::dims;

// Below this many multiply-adds the reference kernel is as fast.
constexpr std::size_t smallest_convolution = std::size_t{1} << 16;

// Below this depth (C*KH*KW: a first layer's one or three channels) the
// reference's direct kernels are faster (bench/fusion_bench's topos_fast
// against topos_fused with this rule lowered to 1, interleaved: a LeNet first
// layer, depth 9, 262-302 us against 173-227; the digits CNN's, 130-146
// against 84-90).
constexpr std::size_t shallowest_convolution = 32;

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

const dnnl::engine& cpu() {
    static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

// The plan's layouts: the image NCHW, the filters the [C, KH, KW, O] matrix,
// the result [N, OH, OW, O] (NHWC).
struct PlanLayouts {
    memory::desc image;
    memory::desc filters;
    memory::desc result;
};

PlanLayouts plan_layouts(const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    const auto f32 = memory::data_type::f32;
    const Dims image{dim(g.batch), dim(g.channels), dim(g.extent[0]), dim(g.extent[1])};
    const Dims filters{dim(w.columns), dim(g.channels), dim(g.size[0]), dim(g.size[1])};
    const Dims filter_strides{
        1, dim(g.taps() * w.columns), dim(g.size[1] * w.columns), dim(w.columns)};
    const Dims result{dim(g.batch), dim(w.columns), dim(g.count[0]), dim(g.count[1])};
    return {memory::desc(image, f32, memory::format_tag::nchw),
            memory::desc(filters, f32, filter_strides),
            memory::desc(result, f32, memory::format_tag::nhwc)};
}

// Every primitive keeps its scratch memory in the calling thread's buffer
// (scratchpad_mode::user), so one primitive may run on several threads at once.
dnnl::primitive_attr user_scratchpad() {
    dnnl::primitive_attr attributes;
    attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attributes;
}

// A reorder between two layouts, when they differ.
struct Reorder {
    dnnl::reorder::primitive_desc chosen;
    dnnl::reorder primitive;
};

std::optional<Reorder> reorder_between(const memory::desc& from, const memory::desc& to) {
    if (from == to) {
        return std::nullopt;
    }
    const dnnl::reorder::primitive_desc chosen(cpu(), from, cpu(), to, user_scratchpad());
    return Reorder{chosen, dnnl::reorder(chosen)};
}

// A convolution's primitives: the reorders into oneDNN's layouts and back,
// where it picked others.
struct Convolution {
    PlanLayouts plan;
    dnnl::convolution_forward::primitive_desc chosen;
    dnnl::convolution_forward primitive;
    std::optional<Reorder> image_in, filters_in, result_out;
};

std::unique_ptr<Convolution> create(const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    const PlanLayouts plan = plan_layouts(w);
    const auto any = [](const memory::desc& d) {
        return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any);
    };
    const Dims strides{dim(g.step[0]), dim(g.step[1])};
    const Dims dilation{dim(g.dilation[0] - 1), dim(g.dilation[1] - 1)};
    const Dims before{dim(g.pad_before[0]), dim(g.pad_before[1])};
    const Dims after{*padding_after(g, 0), *padding_after(g, 1)};
    const dnnl::convolution_forward::desc description(dnnl::prop_kind::forward_inference,
                                                      dnnl::algorithm::convolution_direct,
                                                      any(plan.image),
                                                      any(plan.filters),
                                                      any(plan.result),
                                                      strides,
                                                      dilation,
                                                      before,
                                                      after);
    const dnnl::convolution_forward::primitive_desc chosen(description, user_scratchpad(), cpu());
    auto made = std::make_unique<Convolution>(
        Convolution{plan, chosen, dnnl::convolution_forward(chosen), {}, {}, {}});
    made->image_in = reorder_between(plan.image, chosen.src_desc());
    made->filters_in = reorder_between(plan.filters, chosen.weights_desc());
    made->result_out = reorder_between(chosen.dst_desc(), plan.result);
    return made;
}

// oneDNN runs on the library's pool, a slice of the batch a thread, each call
// on one OpenMP thread: two thread pools on the same cores would take turns
// (measured: a Fast LeNet step 1.6 times slower). The setting is the calling
// thread's; omp_set_num_threads is looked up at run time, so that topos links
// no OpenMP runtime of its own.
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

using Key = std::tuple<std::size_t,
                       std::size_t,
                       std::array<std::size_t, 2>,
                       std::array<std::size_t, 2>,
                       std::array<std::size_t, 2>,
                       std::array<std::size_t, 2>,
                       std::array<std::size_t, 2>,
                       std::size_t>;

// The primitives of this geometry, created on first use and kept. A
// primitive keeps the thread count it was created under: one.
const Convolution& convolution_for(const WindowProductGeometry& w) {
    one_openmp_thread();
    static std::mutex guard;
    static std::map<Key, std::unique_ptr<Convolution>> made;
    const WindowGeometry& g = w.window;
    const Key key{
        g.batch, g.channels, g.extent, g.pad_before, g.size, g.step, g.dilation, w.columns};
    const std::lock_guard lock(guard);
    std::unique_ptr<Convolution>& slot = made[key];
    if (!slot) {
        slot = create(w);
    }
    return *slot;
}

memory over(const memory::desc& layout, void* data) {
    return memory(layout, cpu(), data);
}

// This thread's buffer, grown to hold `layout`.
void* buffer_for(std::vector<float>& buffer, const memory::desc& layout) {
    buffer.resize((layout.get_size() + sizeof(float) - 1) / sizeof(float));
    return buffer.data();
}

// Runs `primitive` with its scratchpad in this thread's buffer.
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

// `from` reordered into `to`'s layout where a reorder stands between them.
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

// Images [first, first + count) of the batch, on the calling thread.
void convolve_slice(const WindowProductGeometry& w,
                    std::size_t first,
                    std::size_t count,
                    const float* image,
                    const float* filters,
                    float* result) {
    WindowProductGeometry slice = w;
    slice.window.batch = count;
    const Convolution& c = convolution_for(slice);
    const WindowGeometry& g = w.window;
    thread_local std::vector<float> image_buffer, filter_buffer, result_buffer;
    // oneDNN reads its inputs through non-const handles; it never writes them.
    const float* images = image + first * g.channels * g.extent[0] * g.extent[1];
    const memory source =
        in_layout(c.image_in, over(c.plan.image, const_cast<float*>(images)), image_buffer);
    const memory weights =
        in_layout(c.filters_in, over(c.plan.filters, const_cast<float*>(filters)), filter_buffer);
    const memory results = over(c.plan.result, result + first * g.outputs() * w.columns);
    const memory destination =
        c.result_out ? over(c.chosen.dst_desc(), buffer_for(result_buffer, c.chosen.dst_desc()))
                     : results;
    execute(c.primitive,
            c.chosen.scratchpad_desc(),
            {{DNNL_ARG_SRC, source}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, destination}});
    if (c.result_out) {
        execute(c.result_out->primitive,
                c.result_out->chosen.scratchpad_desc(),
                {{DNNL_ARG_FROM, destination}, {DNNL_ARG_TO, results}});
    }
}

// Below this many multiply-adds a convolution runs on the calling thread.
constexpr std::size_t parallel_convolution = std::size_t{1} << 20;

std::size_t multiply_adds(const WindowProductGeometry& w) {
    const WindowGeometry& g = w.window;
    return g.batch * g.outputs() * g.channels * g.taps() * w.columns;
}

bool serves_match(const Match& match, Precision precision) {
    // A match whose kernel runs an image's windows times a matrix (WindowProduct).
    const auto* product = match.geometry_if<WindowProductGeometry>();
    if (precision != Precision::F32 || product == nullptr) {
        return false;
    }
    const WindowProductGeometry& w = *product;
    if (w.transposed || multiply_adds(w) < smallest_convolution ||
        w.window.channels * w.window.taps() < shallowest_convolution ||
        !padding_after(w.window, 0) || !padding_after(w.window, 1)) {
        return false;
    }
    try {
        convolution_for(w);  // oneDNN accepts it: created now, kept for the runs
    } catch (const dnnl::error&) {
        return false;
    }
    return true;
}

// The batch in slices, one a thread of the pool; the first failure (oneDNN
// cannot create a slice's primitives) is rethrown after them.
void convolve(const Match& match,
              std::span<const float* const> inputs,
              std::span<float* const> results) {
    const auto& w = match.geometry_as<WindowProductGeometry>();
    const std::size_t batch = w.window.batch;
    const std::size_t parts = multiply_adds(w) < parallel_convolution
                                  ? 1
                                  : std::min(batch, ThreadPool::instance().thread_count());
    std::vector<std::exception_ptr> failures(parts);
    ThreadPool::instance().run(parts, [&](std::size_t part) {
        const std::size_t first = part * batch / parts;
        const std::size_t end = (part + 1) * batch / parts;
        try {
            convolve_slice(w, first, end - first, inputs[0], inputs[1], results[0]);
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

}  // namespace

const Server& onednn_server() {
    // No single node, and no double tensor: elected float convolutions only.
    static const Server server{.name = "onednn",
                               .fidelity = Fidelity::Reordered,
                               .formulas = {"WindowProduct"},
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
