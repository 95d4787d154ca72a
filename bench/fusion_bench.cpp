// Fused convolution and pooling against the unfused plan, against LibTorch's
// conv2d / max_pool2d when LibTorch is found (Debian's libtorch-dev), and the
// convolutions against oneDNN's when it is found (Debian's libdnnl-dev), all in
// one program so `--benchmark_enable_random_interleaving` interleaves them.
// Sizes: the seeds' example ([1, 1, 6, 6], 2 filters 3x3, relu, 2x2 pool), the
// two layers of a LeNet-sized batch (W4: [32, 1, 28, 28] -> 8 channels -> pool
// -> 16 channels -> pool), the two of the digits CNN (G2: [50, 1, 8, 8] -> 32
// channels -> pool -> 64 channels) and a wider layer ([8, 32, 32, 32] -> 32
// channels), 3x3 filters with padding 1.
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

#if defined(TOPOS_BENCH_WITH_TORCH)
#include <torch/torch.h>
#endif
#if defined(TOPOS_BENCH_WITH_DNNL)
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>
#endif

namespace {

using topos::Shape;
using topos::Tape;

struct Layer {
    std::size_t batch, channels, size, filters, kernel, padding;
};

constexpr Layer seeds{1, 1, 6, 2, 3, 0};
constexpr Layer lenet_first{32, 1, 28, 8, 3, 1};
constexpr Layer lenet_second{32, 8, 14, 16, 3, 1};
constexpr Layer digits_first{50, 1, 8, 32, 3, 1};
constexpr Layer digits_second{50, 32, 4, 64, 3, 1};
constexpr Layer wide{8, 32, 32, 32, 3, 1};

// conv2d + relu, then a 2x2 max pool, as separately declared values.
struct Recorded {
    topos::Network<float> network;
    topos::Symbol convolved;
    topos::Symbol pooled;
};

Recorded record(const Layer& l) {
    Tape<float> tape;
    auto image =
        tape.input(topos::init::normal(1, 1.0)(Shape{l.batch, l.channels, l.size, l.size}));
    auto filters = tape.parameter(
        topos::init::normal(2, 0.3)(Shape{l.filters, l.channels, l.kernel, l.kernel}));
    auto bias = tape.parameter(topos::init::normal(3, 0.1)(Shape{l.filters}));
    auto convolved = topos::conv2d(image, filters, bias, 1, l.padding).relu();
    auto pooled = topos::max_pool(convolved, 2, 2);
    return {std::move(tape).into_network(), convolved, pooled};
}

enum class Part {
    Convolution,
    Pooling,
    Both
};

void topos_plan(benchmark::State& state,
                Layer layer,
                Part part,
                bool fused,
                topos::Numerics numerics = topos::Numerics::Exact) {
    const Recorded recorded = record(layer);
    const topos::Symbol root = part == Part::Convolution ? recorded.convolved : recorded.pooled;
    const auto parameters = recorded.network.parameters();
    const auto entry = recorded.network.entry({root}).numerics(numerics).elect_patterns(fused);
    if (part == Part::Pooling) {
        // The pooling alone: its input fed, so the convolution is not scheduled.
        Tape<float> tape;
        const Shape shape = recorded.network.nodes()[recorded.convolved.index()].shape();
        auto input = tape.input(topos::init::normal(4, 1.0)(shape));
        const topos::Symbol pooled = topos::max_pool(input, 2, 2);
        const auto network = std::move(tape).into_network();
        const auto plan = network.entry({pooled}).elect_patterns(fused).lower();
        for (auto _ : state) {
            benchmark::DoNotOptimize(plan.forward(network.parameters()).of(pooled).data().data());
        }
        return;
    }
    const auto plan = entry.lower();
    for (auto _ : state) {
        benchmark::DoNotOptimize(plan.forward(parameters).of(root).data().data());
    }
}

#if defined(TOPOS_BENCH_WITH_TORCH)
void libtorch(benchmark::State& state, Layer l, Part part) {
    torch::NoGradGuard no_gradients;
    at::set_num_threads(1);
    const auto image = torch::randn({long(l.batch), long(l.channels), long(l.size), long(l.size)});
    const auto filters =
        torch::randn({long(l.filters), long(l.channels), long(l.kernel), long(l.kernel)});
    const auto bias = torch::randn({long(l.filters)});
    const auto convolved = torch::relu(torch::conv2d(image, filters, bias, 1, long(l.padding)));
    for (auto _ : state) {
        if (part == Part::Pooling) {
            benchmark::DoNotOptimize(torch::max_pool2d(convolved, 2, 2).data_ptr());
            continue;
        }
        auto result = torch::relu(torch::conv2d(image, filters, bias, 1, long(l.padding)));
        if (part == Part::Both) {
            result = torch::max_pool2d(result, 2, 2);
        }
        benchmark::DoNotOptimize(result.data_ptr());
    }
}
#endif

#if defined(TOPOS_BENCH_WITH_DNNL)
// oneDNN's convolution with relu as a post-op, in the layouts it picks
// (format_tag::any), as LibTorch calls it: the filters reordered once, the
// image into its layout and the result back to NCHW on every run, since a
// plan's values are NCHW. Threads: oneDNN's OpenMP runtime (OMP_NUM_THREADS).
void onednn(benchmark::State& state, Layer l) {
    using dnnl::memory;
    using tag = memory::format_tag;
    const auto i = [](std::size_t v) { return static_cast<memory::dim>(v); };
    const std::size_t out = l.size + 2 * l.padding - l.kernel + 1;
    const memory::dims image_dims{i(l.batch), i(l.channels), i(l.size), i(l.size)};
    const memory::dims filter_dims{i(l.filters), i(l.channels), i(l.kernel), i(l.kernel)};
    const memory::dims result_dims{i(l.batch), i(l.filters), i(out), i(out)};
    const memory::dims bias_dims{i(l.filters)};
    const dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(cpu);
    const auto f32 = memory::data_type::f32;
    const auto filled = [&](const memory::dims& dims, tag layout) {
        memory m({dims, f32, layout}, cpu);
        std::mt19937 random(5);
        std::normal_distribution<float> normal(0.0f, 0.3f);
        auto* data = static_cast<float*>(m.get_data_handle());
        for (std::size_t k = 0; k < m.get_desc().get_size() / sizeof(float); ++k) {
            data[k] = normal(random);
        }
        return m;
    };
    memory image = filled(image_dims, tag::nchw);
    memory filters = filled(filter_dims, tag::oihw);
    const memory bias = filled(bias_dims, tag::x);
    memory result({result_dims, f32, tag::nchw}, cpu);
    const memory::dims unit{1, 1}, padding{i(l.padding), i(l.padding)};
    const dnnl::convolution_forward::desc description(dnnl::prop_kind::forward_inference,
                                                      dnnl::algorithm::convolution_direct,
                                                      {image_dims, f32, tag::any},
                                                      {filter_dims, f32, tag::any},
                                                      {bias_dims, f32, tag::x},
                                                      {result_dims, f32, tag::any},
                                                      unit,
                                                      padding,
                                                      padding);
    dnnl::post_ops relu;
    relu.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attributes;
    attributes.set_post_ops(relu);
    const dnnl::convolution_forward::primitive_desc chosen(description, attributes, cpu);
    const auto in_layout = [&](const memory& user, const memory::desc& wanted) {
        return user.get_desc() == wanted ? user : memory(wanted, cpu);
    };
    memory conv_filters = in_layout(filters, chosen.weights_desc());
    if (conv_filters != filters) {
        dnnl::reorder(filters, conv_filters).execute(stream, filters, conv_filters);
    }
    memory conv_image = in_layout(image, chosen.src_desc());
    memory conv_result = in_layout(result, chosen.dst_desc());
    const dnnl::convolution_forward convolution(chosen);
    for (auto _ : state) {
        if (conv_image != image) {
            dnnl::reorder(image, conv_image).execute(stream, image, conv_image);
        }
        convolution.execute(stream,
                            {{DNNL_ARG_SRC, conv_image},
                             {DNNL_ARG_WEIGHTS, conv_filters},
                             {DNNL_ARG_BIAS, bias},
                             {DNNL_ARG_DST, conv_result}});
        if (conv_result != result) {
            dnnl::reorder(conv_result, result).execute(stream, conv_result, result);
        }
        stream.wait();
        benchmark::DoNotOptimize(result.get_data_handle());
    }
}
#endif

void register_layer(const char* name, Layer layer, Part part) {
    const std::string prefix = name;
    benchmark::RegisterBenchmark(
        (prefix + "/topos_fused").c_str(), topos_plan, layer, part, true, topos::Numerics::Exact)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(
        (prefix + "/topos_unfused").c_str(), topos_plan, layer, part, false, topos::Numerics::Exact)
        ->Unit(benchmark::kMicrosecond);
    // Under Fast, with the backends this build holds (oneDNN's convolutions).
    benchmark::RegisterBenchmark(
        (prefix + "/topos_fast").c_str(), topos_plan, layer, part, true, topos::Numerics::Fast)
        ->Unit(benchmark::kMicrosecond);
#if defined(TOPOS_BENCH_WITH_TORCH)
    benchmark::RegisterBenchmark((prefix + "/libtorch").c_str(), libtorch, layer, part)
        ->Unit(benchmark::kMicrosecond);
#endif
#if defined(TOPOS_BENCH_WITH_DNNL)
    if (part == Part::Convolution) {
        benchmark::RegisterBenchmark((prefix + "/onednn").c_str(), onednn, layer)
            ->Unit(benchmark::kMicrosecond);
    }
#endif
}

}  // namespace

int main(int argc, char** argv) {
    register_layer("seeds_conv_relu_pool", seeds, Part::Both);
    register_layer("lenet1_conv_relu", lenet_first, Part::Convolution);
    register_layer("lenet1_pool", lenet_first, Part::Pooling);
    register_layer("lenet2_conv_relu", lenet_second, Part::Convolution);
    register_layer("lenet2_pool", lenet_second, Part::Pooling);
    register_layer("digits1_conv_relu", digits_first, Part::Convolution);
    register_layer("digits2_conv_relu", digits_second, Part::Convolution);
    register_layer("wide_conv_relu", wide, Part::Convolution);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
