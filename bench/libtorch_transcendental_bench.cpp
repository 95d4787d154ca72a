// LibTorch's vectorised exp, tanh, sigmoid, erf, gelu, log and softplus on one
// thread, over the same 2^20 elements uniform in [-4, 4] as transcendental_bench
// (float and double; log over their magnitudes), and its log_softmax over them
// as rows of 1024. Counters: ns per element.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <random>
#include <string>
#include <torch/torch.h>
#include <vector>

namespace {

constexpr std::int64_t elements = std::int64_t{1} << 20;

torch::Tensor uniform_inputs(torch::ScalarType type) {
    std::mt19937 random(2026);
    std::uniform_real_distribution<double> uniform(-4.0, 4.0);
    std::vector<double> values(static_cast<std::size_t>(elements));
    for (double& value : values) {
        value = uniform(random);
    }
    return torch::tensor(values, torch::kFloat64).to(type);
}

void torch_function(benchmark::State& state,
                    torch::ScalarType type,
                    const std::function<void(const torch::Tensor&, torch::Tensor&)>& f,
                    bool magnitudes) {
    at::set_num_threads(1);
    const torch::Tensor x = magnitudes ? uniform_inputs(type).abs() : uniform_inputs(type);
    torch::Tensor out = torch::empty_like(x);
    for (auto _ : state) {
        f(x, out);
        benchmark::DoNotOptimize(out.data_ptr());
        benchmark::ClobberMemory();
    }
    // A rate of (elements / 10^9) per second, inverted: nanoseconds per element.
    state.counters["ns_per_element"] = benchmark::Counter(
        static_cast<double>(elements) * static_cast<double>(state.iterations()) / 1e9,
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void register_all() {
    const std::pair<const char*, std::function<void(const torch::Tensor&, torch::Tensor&)>>
        functions[] = {
            {"exp", [](const torch::Tensor& x, torch::Tensor& out) { torch::exp_out(out, x); }},
            {"tanh", [](const torch::Tensor& x, torch::Tensor& out) { torch::tanh_out(out, x); }},
            {"sigmoid",
             [](const torch::Tensor& x, torch::Tensor& out) { torch::sigmoid_out(out, x); }},
            {"erf", [](const torch::Tensor& x, torch::Tensor& out) { torch::erf_out(out, x); }},
            {"gelu", [](const torch::Tensor& x, torch::Tensor& out) { torch::gelu_out(out, x); }},
            {"log", [](const torch::Tensor& x, torch::Tensor& out) { torch::log_out(out, x); }},
            {"softplus",
             [](const torch::Tensor& x, torch::Tensor& out) { torch::softplus_out(out, x); }},
            {"log_softmax", [](const torch::Tensor& x, torch::Tensor& out) {
                 torch::Tensor rows = out.view({-1, 1024});
                 torch::log_softmax_out(rows, x.view({-1, 1024}), 1);
             }}};
    for (const auto& [name, f] : functions) {
        benchmark::RegisterBenchmark(("float_" + std::string(name) + "/libtorch").c_str(),
                                     torch_function,
                                     torch::kFloat32,
                                     f,
                                     std::string(name) == "log")
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("double_" + std::string(name) + "/libtorch").c_str(),
                                     torch_function,
                                     torch::kFloat64,
                                     f,
                                     std::string(name) == "log")
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
