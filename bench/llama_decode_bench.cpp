// L1, Llama decoding at TinyLlama 1.1B's sizes (22 layers, hidden 2048,
// intermediate 5632, 32 heads, 4 key/value heads, vocabulary 32000) with
// random weights, through LlamaGenerator's key/value-cache plans, in float
// and bf16, context 256:
//   BM_LlamaDecode/<dtype>   one token a step at positions 128 .. 255
//   BM_LlamaPrefill/<dtype>  a 128-token prompt in one prefill run
//   .../bf16_fast            the same under Numerics::Fast (the bf16 products
//                            on vdpbf16ps where the build has TOPOS_ENABLE_BF16_DOT)
//   BM_LlamaLoad/...         a released folder of bf16 tensors loaded, beside
//   BM_ReadFolderBytes       reading its bytes (in the page cache) into a buffer
// Counters: tokens/s; weight_bytes, the bytes of weights a step reads (every
// matrix and norm, one row of the embedding); resident_mib, the process's
// resident memory while decoding. The threads are TOPOS_THREADS's.
// TOPOS_LLAMA_LAYERS=N keeps N layers (a quick check). bench/libtorch_llama_bench.cpp
// is the same model in LibTorch; bench/copy_bandwidth_bench.cpp the machine's limit.
#include "kernels_picked.hpp"
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::size_t context = 256;
constexpr std::size_t prompt_tokens = 128;

topos::LlamaConfig tiny_llama() {
    topos::LlamaConfig config{.vocabulary = 32000,
                              .hidden = 2048,
                              .intermediate = 5632,
                              .layers = 22,
                              .heads = 32,
                              .key_value_heads = 4,
                              .rope_theta = 10000.0,
                              .rms_norm_eps = 1e-5,
                              .max_positions = 2048,
                              .tied_embeddings = false};
    if (const char* layers = std::getenv("TOPOS_LLAMA_LAYERS")) {
        config.layers = std::stoul(layers);
    }
    return config;
}

double resident_mib() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    std::size_t resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
           (1024.0 * 1024.0);
}

std::vector<std::int64_t> prompt() {
    std::vector<std::int64_t> ids(prompt_tokens);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        ids[i] = static_cast<std::int64_t>((i * 7919 + 1) % 32000);
    }
    return ids;
}

// One generator at a time, so that resident_mib counts one model: the others
// are let go before one is made.
template <topos::Element T, topos::Numerics N>
std::unique_ptr<topos::LlamaGenerator<T>>& held() {
    static std::unique_ptr<topos::LlamaGenerator<T>> generator;
    return generator;
}

void let_go_of_every_generator() {
    held<float, topos::Numerics::Exact>().reset();
    held<topos::bf16, topos::Numerics::Exact>().reset();
    held<topos::bf16, topos::Numerics::Fast>().reset();
}

template <topos::Element T, topos::Numerics N>
topos::LlamaGenerator<T>& generator() {
    std::unique_ptr<topos::LlamaGenerator<T>>& made = held<T, N>();
    if (!made) {
        let_go_of_every_generator();
        topos::Tape<T> tape;
        const topos::Llama<T> model(tape, tiny_llama(), topos::init::normal(1, 0.02));
        made = std::make_unique<topos::LlamaGenerator<T>>(
            std::move(tape),
            model,
            topos::GeneratorOptions{
                .context = context, .prefill_chunk = prompt_tokens, .numerics = N});
    }
    return *made;
}

template <topos::Element T>
double weight_bytes() {
    const topos::LlamaConfig config = tiny_llama();
    const std::size_t embedding_rows_unread = (config.vocabulary - 1) * config.hidden;
    return static_cast<double>((config.parameter_count() - embedding_rows_unread) * sizeof(T));
}

template <topos::Element T, topos::Numerics N = topos::Numerics::Exact>
void BM_LlamaDecode(benchmark::State& state) {
    topos::LlamaGenerator<T>& llama = generator<T, N>();
    const std::vector<std::int64_t> ids = prompt();
    llama.reset();
    (void)llama.feed(ids);
    std::int64_t token = 1;
    for (auto _ : state) {
        if (llama.position() == context) {
            state.PauseTiming();
            llama.reset();
            (void)llama.feed(ids);
            state.ResumeTiming();
        }
        const auto logits = llama.feed(std::span<const std::int64_t>(&token, 1));
        benchmark::DoNotOptimize(logits.data());
        token = (token * 31 + 7) % 32000;
    }
    state.counters["tokens/s"] =
        benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["weight_bytes"] = weight_bytes<T>();
    state.counters["resident_mib"] = resident_mib();
}

template <topos::Element T, topos::Numerics N = topos::Numerics::Exact>
void BM_LlamaPrefill(benchmark::State& state) {
    topos::LlamaGenerator<T>& llama = generator<T, N>();
    const std::vector<std::int64_t> ids = prompt();
    for (auto _ : state) {
        llama.reset();
        const auto logits = llama.feed(ids);
        benchmark::DoNotOptimize(logits.data());
    }
    state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(prompt_tokens),
                                                    benchmark::Counter::kIsIterationInvariantRate);
    state.counters["resident_mib"] = resident_mib();
}

// A TinyLlama-size folder of random bf16 weights (2.2 GB), written once under
// the system's temporary folder, for the load benchmarks.
const std::filesystem::path& bf16_folder() {
    static const std::filesystem::path folder = [] {
        let_go_of_every_generator();
        const std::filesystem::path path =
            std::filesystem::temp_directory_path() / "topos_llama_load_bench";
        topos::Tape<topos::bf16> tape;
        const topos::Llama<topos::bf16> model(tape, tiny_llama(), topos::init::normal(2, 0.02));
        const topos::Network<topos::bf16> network = std::move(tape).into_network();
        topos::save_llama_folder(path, model, network.parameters());
        return path;
    }();
    return folder;
}

// The folder's tensor bytes read into a buffer, 64 MiB at a time: the bound a
// load works against (the file is in the page cache after the first read).
void BM_ReadFolderBytes(benchmark::State& state) {
    const std::filesystem::path file = bf16_folder() / "model.safetensors";
    std::vector<char> buffer(std::size_t{64} << 20U);
    for (auto _ : state) {
        std::ifstream in(file, std::ios::binary);
        while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) ||
               in.gcount() > 0) {
            benchmark::DoNotOptimize(buffer.data());
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(std::filesystem::file_size(file)));
}

// LlamaFolder(...).load into a bf16 model (bit for bit) or a float one (widened).
template <topos::Element T>
void BM_LlamaLoad(benchmark::State& state) {
    const std::filesystem::path& folder = bf16_folder();
    for (auto _ : state) {
        topos::Tape<T> tape;
        const topos::Llama<T> model = topos::LlamaFolder(folder).load(tape, {.convert = true});
        benchmark::DoNotOptimize(&model);
    }
    state.SetBytesProcessed(
        static_cast<std::int64_t>(state.iterations()) *
        static_cast<std::int64_t>(std::filesystem::file_size(folder / "model.safetensors")));
    state.counters["resident_mib"] = resident_mib();
}

}  // namespace

BENCHMARK(BM_LlamaDecode<float>)
    ->Name("BM_LlamaDecode/f32")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);
BENCHMARK(BM_LlamaPrefill<float>)
    ->Name("BM_LlamaPrefill/f32")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);
BENCHMARK(BM_LlamaDecode<topos::bf16>)
    ->Name("BM_LlamaDecode/bf16")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);
BENCHMARK(BM_LlamaPrefill<topos::bf16>)
    ->Name("BM_LlamaPrefill/bf16")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);

BENCHMARK(BM_LlamaDecode<topos::bf16, topos::Numerics::Fast>)
    ->Name("BM_LlamaDecode/bf16_fast")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);
BENCHMARK(BM_LlamaPrefill<topos::bf16, topos::Numerics::Fast>)
    ->Name("BM_LlamaPrefill/bf16_fast")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);

BENCHMARK(BM_ReadFolderBytes)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
BENCHMARK(BM_LlamaLoad<topos::bf16>)
    ->Name("BM_LlamaLoad/bf16")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2);
BENCHMARK(BM_LlamaLoad<float>)
    ->Name("BM_LlamaLoad/f32_from_bf16")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    bench::add_kernels_context();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
