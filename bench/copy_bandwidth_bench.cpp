// The machine's memory bandwidth, read the way decoding reads its weights.
//
// Decoding one token reads every weight matrix once (TinyLlama 1.1B: about
// 4.1 GB in float32, 2.1 GB in bf16; libtorch_llama_bench's "weight_bytes"),
// and at batch 1 there is too little arithmetic per byte to hide it, so
// decode tokens/s <= read bandwidth / weight bytes per token.
//
//   BM_ReadBandwidth  sums the floats of a 1 GiB buffer (far beyond any
//                     cache), split evenly among 1 and 2 threads.
//                     bytes_per_second counts the bytes read.
//   BM_CopyBandwidth  memcpy of a 512 MiB buffer into another, split the
//                     same way. bytes_per_second counts the bytes read plus
//                     the bytes written: twice the bytes copied.
//
// Google Benchmark prints bytes_per_second in binary units (G/s is GiB/s).
//
// The sum keeps 64 independent partial sums, so that the compiler vectorises
// it without reassociating one sum (no -ffast-math); the target_clones copies
// take AVX-512 or AVX2 where the processor has them.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace {

constexpr std::size_t read_bytes = std::size_t{1} << 30;
constexpr std::size_t copy_bytes = std::size_t{512} << 20;

struct Free {
    void operator()(float* data) const { std::free(data); }
};

using Buffer = std::unique_ptr<float[], Free>;

// `bytes` of 64-byte aligned floats, every page written once so that the
// timed loops never fault pages in.
Buffer filled_buffer(std::size_t bytes, float value) {
    Buffer buffer(static_cast<float*>(std::aligned_alloc(64, bytes)));
    if (!buffer) {
        std::abort();
    }
    const std::size_t count = bytes / sizeof(float);
    for (std::size_t i = 0; i < count; ++i) {
        buffer[i] = value;
    }
    return buffer;
}

[[gnu::target_clones("avx512f", "avx2", "default")]] float sum(const float* data,
                                                               std::size_t count) {
    constexpr std::size_t lanes = 64;
    float partial[lanes] = {};
    std::size_t i = 0;
    for (; i + lanes <= count; i += lanes) {
        for (std::size_t j = 0; j < lanes; ++j) {
            partial[j] += data[i + j];
        }
    }
    float total = 0;
    for (; i < count; ++i) {
        total += data[i];
    }
    for (const float p : partial) {
        total += p;
    }
    return total;
}

void BM_ReadBandwidth(benchmark::State& state) {
    static const Buffer buffer = filled_buffer(read_bytes, 1.0f);
    const std::size_t count = read_bytes / sizeof(float) / std::size_t(state.threads());
    const float* slice = buffer.get() + count * std::size_t(state.thread_index());
    for (auto _ : state) {
        benchmark::DoNotOptimize(sum(slice, count));
    }
    state.SetBytesProcessed(state.iterations() * std::int64_t(count * sizeof(float)));
}

void BM_CopyBandwidth(benchmark::State& state) {
    static const Buffer source = filled_buffer(copy_bytes, 1.0f);
    static const Buffer target = filled_buffer(copy_bytes, 0.0f);
    const std::size_t bytes = copy_bytes / std::size_t(state.threads());
    const std::size_t offset = bytes / sizeof(float) * std::size_t(state.thread_index());
    for (auto _ : state) {
        std::memcpy(target.get() + offset, source.get() + offset, bytes);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * std::int64_t(2 * bytes));
}

}  // namespace

BENCHMARK(BM_ReadBandwidth)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_CopyBandwidth)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

BENCHMARK_MAIN();
