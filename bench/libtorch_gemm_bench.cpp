// W1's LibTorch peer for the bf16 rows: torch::matmul of two n x n bf16
// matrices (n = 1024 and 2048, 1 and 2 threads), the same sizes and the same
// counter as bench/gemm_bench's topos_bf16_exact and topos_bf16_fast, which
// bench/compare prints beside it. A program of its own, so that gemm_bench
// never links LibTorch.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <torch/torch.h>

namespace {

void libtorch_bf16(benchmark::State& state) {
    const std::int64_t n = state.range(0);
    at::set_num_threads(static_cast<int>(state.range(1)));
    torch::manual_seed(1);
    const torch::Tensor a = (torch::rand({n, n}) * 2 - 1).to(torch::kBFloat16);
    const torch::Tensor b = (torch::rand({n, n}) * 2 - 1).to(torch::kBFloat16);
    for (auto _ : state) {
        const torch::Tensor c = torch::matmul(a, b);
        benchmark::DoNotOptimize(c.data_ptr());
    }
    const double flops = 2.0 * double(n) * double(n) * double(n);
    state.counters["GFLOP/s"] = benchmark::Counter(
        flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
    state.SetLabel(std::string("LibTorch ") + TORCH_VERSION +
                   (at::globalContext().userEnabledMkldnn() ? ", oneDNN enabled" : ""));
}

void large_square_sizes(benchmark::internal::Benchmark* benchmark) {
    for (const int n : {1024, 2048}) {
        for (const int threads : {1, 2}) {
            benchmark->Args({n, threads});
        }
    }
    benchmark->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(libtorch_bf16)->Apply(large_square_sizes);

BENCHMARK_MAIN();
