// Llama-family decoding at TinyLlama 1.1B's dimensions, written in plain
// LibTorch tensor ops (Debian's libtorch-dev): the same architecture as
// Hugging Face's LlamaForCausalLM (eager attention), batch 1, with random
// weights (normal, std 0.02; the norms' weights are ones, as HF initialises
// them) in float32 or bfloat16.
//
//   BM_LlamaDecode/<f32|bf16>   one token per iteration at positions 128..255
//                               of a 256-position key/value cache (greedy: the
//                               next token is the argmax of the last logits),
//                               wrapping back to 128 at the end of the cache.
//                               The projections are torch::linear, as HF runs
//                               them; BM_LlamaDecode/f32_mv multiplies by the
//                               weights with Tensor::mv (BLAS gemv) instead.
//   BM_LlamaPrefill/<f32|bf16>  one causal forward over a 128-token prompt
//                               (caches written, the last position's logits).
//
// `--threads=N` (else TOPOS_THREADS, else 1) sets LibTorch's intra-op pool and
// OpenBLAS's pool (found with dlsym: LibTorch never sets it, and an unset
// OpenBLAS takes every core). TOPOS_LLAMA_LAYERS overrides the 22 layers
// (TOPOS_LLAMA_LAYERS=2 runs in seconds). One model is alive at a time (f32 is
// 4.4 GB), built when the first benchmark of its dtype runs.
//
// Before the benchmarks the program checks, on a 2-layer model of hidden size
// 64, that a full causal forward matches a cache-free HF-style reference, and
// that prefill + decode and token-by-token decoding give the full forward's
// logits (1e-4 relative, float32); it aborts when they do not.
#include "thread_count_argument.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <torch/torch.h>
#include <utility>
#include <vector>

namespace {

struct Config {
    std::int64_t vocab = 32000;
    std::int64_t hidden = 2048;
    std::int64_t intermediate = 5632;
    std::int64_t layers = 22;
    std::int64_t heads = 32;
    std::int64_t kv_heads = 4;
    std::int64_t head_dim = 64;
    double rope_theta = 10000.0;
    double eps = 1e-5;
};

constexpr std::int64_t context = 256;
constexpr std::int64_t prompt_length = 128;

// HF's LlamaRMSNorm: the variance in float32, the weight applied in the input's dtype.
torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& weight, double eps) {
    const torch::Tensor hidden = x.to(torch::kFloat);
    const torch::Tensor variance = hidden.pow(2).mean(-1, /*keepdim=*/true);
    return weight * (hidden * torch::rsqrt(variance + eps)).to(x.scalar_type());
}

torch::Tensor rotate_half(const torch::Tensor& x) {
    const std::int64_t half = x.size(-1) / 2;
    return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

// HF's rotary tables in float32: inv_freq = 1 / theta^(arange(0, d, 2) / d),
// the angles position * inv_freq concatenated twice; cos and sin, [positions, d].
std::pair<torch::Tensor, torch::Tensor> rotary_tables(const Config& c, std::int64_t positions) {
    const torch::Tensor exponents =
        torch::arange(0, c.head_dim, 2, torch::kLong).to(torch::kFloat) / double(c.head_dim);
    const torch::Tensor inv_freq = 1.0 / torch::pow(c.rope_theta, exponents);
    const torch::Tensor angles = torch::outer(torch::arange(positions, torch::kFloat), inv_freq);
    const torch::Tensor doubled = torch::cat({angles, angles}, -1);
    return {doubled.cos(), doubled.sin()};
}

struct Layer {
    torch::Tensor attention_norm, q, k, v, o;  // projections [out, in], no bias
    torch::Tensor mlp_norm, gate, up, down;
    torch::Tensor key_cache, value_cache;  // [1, kv_heads, context, head_dim]
};

struct Llama {
    Config config;
    torch::ScalarType dtype;
    torch::Tensor embedding, final_norm, lm_head;  // lm_head untied, [vocab, hidden]
    std::vector<Layer> layers;
    torch::Tensor cos, sin;  // [context, head_dim] in dtype
    // The decode benchmark's state: the next position and the token to feed it.
    std::int64_t position = 0;
    std::int64_t token = 0;
    // Single-token steps multiply by the weights with Tensor::mv (BLAS gemv)
    // rather than torch::linear (a 1-row GEMM, as HF runs it).
    bool matrix_vector = false;

    Llama(const Config& c, torch::ScalarType type, std::int64_t positions, std::uint64_t seed)
        : config(c), dtype(type) {
        torch::manual_seed(seed);
        // Drawn in float32 and rounded, so the bf16 model is the f32 model rounded.
        const auto matrix = [&](std::int64_t rows, std::int64_t columns) {
            return torch::randn({rows, columns}).mul_(0.02).to(dtype);
        };
        const auto norm = [&] { return torch::ones({c.hidden}, dtype); };
        const auto cache = [&] {
            return torch::zeros({1, c.kv_heads, positions, c.head_dim}, dtype);
        };
        embedding = matrix(c.vocab, c.hidden);
        for (std::int64_t i = 0; i < c.layers; ++i) {
            Layer layer;
            layer.attention_norm = norm();
            layer.q = matrix(c.heads * c.head_dim, c.hidden);
            layer.k = matrix(c.kv_heads * c.head_dim, c.hidden);
            layer.v = matrix(c.kv_heads * c.head_dim, c.hidden);
            layer.o = matrix(c.hidden, c.heads * c.head_dim);
            layer.mlp_norm = norm();
            layer.gate = matrix(c.intermediate, c.hidden);
            layer.up = matrix(c.intermediate, c.hidden);
            layer.down = matrix(c.hidden, c.intermediate);
            layer.key_cache = cache();
            layer.value_cache = cache();
            layers.push_back(std::move(layer));
        }
        final_norm = norm();
        lm_head = matrix(c.vocab, c.hidden);
        auto [cosines, sines] = rotary_tables(c, positions);
        cos = cosines.to(dtype);
        sin = sines.to(dtype);
    }

    // The bytes of weights one decoded token reads: every layer's seven
    // projections and two norms, the final norm and lm_head. The embedding is
    // left out: a token reads one row of it (hidden values), not the matrix.
    std::int64_t weight_bytes_per_token() const {
        const auto bytes = [](const torch::Tensor& t) {
            return t.numel() * static_cast<std::int64_t>(t.element_size());
        };
        std::int64_t total = bytes(final_norm) + bytes(lm_head);
        for (const Layer& l : layers) {
            for (const torch::Tensor* t : {&l.attention_norm,
                                           &l.q,
                                           &l.k,
                                           &l.v,
                                           &l.o,
                                           &l.mlp_norm,
                                           &l.gate,
                                           &l.up,
                                           &l.down}) {
                total += bytes(*t);
            }
        }
        return total;
    }

    // x [T, in] times weight^T: [T, out].
    torch::Tensor project(const torch::Tensor& x, const torch::Tensor& weight) const {
        if (matrix_vector && x.size(0) == 1) {
            return weight.mv(x[0]).unsqueeze(0);
        }
        return torch::linear(x, weight);
    }

    // Runs `tokens` [T] at positions start..start+T-1, writing them into the
    // caches, attending over positions 0..start+T-1. Returns the logits
    // [T, vocab] when `all_logits`, else the last position's [1, vocab].
    torch::Tensor forward(const torch::Tensor& tokens, std::int64_t start, bool all_logits) {
        const Config& c = config;
        const std::int64_t n = tokens.size(0);
        const std::int64_t end = start + n;
        const std::int64_t group = c.heads / c.kv_heads;
        const double scale = 1.0 / std::sqrt(double(c.head_dim));
        const torch::Tensor cosines = cos.narrow(0, start, n);
        const torch::Tensor sines = sin.narrow(0, start, n);
        torch::Tensor masked;  // [T, end]: true where the key comes after the query
        if (n > 1) {
            masked = torch::arange(end).unsqueeze(0) > torch::arange(start, end).unsqueeze(1);
        }
        torch::Tensor x = embedding.index_select(0, tokens);  // [T, hidden]
        for (Layer& layer : layers) {
            const torch::Tensor h = rms_norm(x, layer.attention_norm, c.eps);
            // [heads, T, head_dim] and [kv_heads, T, head_dim]
            torch::Tensor q = project(h, layer.q).view({n, c.heads, c.head_dim}).transpose(0, 1);
            torch::Tensor k = project(h, layer.k).view({n, c.kv_heads, c.head_dim}).transpose(0, 1);
            const torch::Tensor v =
                project(h, layer.v).view({n, c.kv_heads, c.head_dim}).transpose(0, 1);
            q = q * cosines + rotate_half(q) * sines;
            k = k * cosines + rotate_half(k) * sines;
            const torch::Tensor key_cache = layer.key_cache.select(0, 0);  // [kv_heads, context, d]
            const torch::Tensor value_cache = layer.value_cache.select(0, 0);
            key_cache.narrow(1, start, n).copy_(k);
            value_cache.narrow(1, start, n).copy_(v);
            const torch::Tensor keys = key_cache.narrow(1, 0, end);
            const torch::Tensor values = value_cache.narrow(1, 0, end);
            // Grouped-query attention without repeating the keys: the `group`
            // query heads of a key/value head are the rows of one matrix,
            // [kv_heads, group * T, head_dim].
            const torch::Tensor grouped = q.reshape({c.kv_heads, group * n, c.head_dim});
            torch::Tensor scores = torch::matmul(grouped, keys.transpose(1, 2)).mul_(scale);
            if (n > 1) {
                scores.view({c.kv_heads, group, n, end})
                    .masked_fill_(masked, -std::numeric_limits<double>::infinity());
            }
            const torch::Tensor probabilities = torch::softmax(scores, -1, torch::kFloat).to(dtype);
            const torch::Tensor attended = torch::matmul(probabilities, values)
                                               .view({c.heads, n, c.head_dim})
                                               .transpose(0, 1)
                                               .reshape({n, c.heads * c.head_dim});
            x = x + project(attended, layer.o);
            const torch::Tensor g = rms_norm(x, layer.mlp_norm, c.eps);
            x = x + project(torch::silu(project(g, layer.gate)) * project(g, layer.up), layer.down);
        }
        if (!all_logits) {
            x = x.narrow(0, n - 1, 1);
        }
        return project(rms_norm(x, final_norm, c.eps), lm_head);
    }
};

// HF's eager LlamaForCausalLM forward over `tokens` from position 0, with no
// cache: repeat_kv copies the key/value heads, an additive causal mask.
torch::Tensor reference_logits(const Llama& m, const torch::Tensor& tokens) {
    const Config& c = m.config;
    const std::int64_t n = tokens.size(0);
    auto [cos, sin] = rotary_tables(c, n);
    cos = cos.to(m.dtype).unsqueeze(0).unsqueeze(0);  // [1, 1, T, d]
    sin = sin.to(m.dtype).unsqueeze(0).unsqueeze(0);
    const torch::Tensor mask =
        torch::full(
            {n, n}, -std::numeric_limits<double>::infinity(), torch::TensorOptions().dtype(m.dtype))
            .triu(1);
    torch::Tensor x = m.embedding.index_select(0, tokens).unsqueeze(0);  // [1, T, hidden]
    for (const Layer& layer : m.layers) {
        const torch::Tensor h = rms_norm(x, layer.attention_norm, c.eps);
        torch::Tensor q =
            torch::linear(h, layer.q).view({1, n, c.heads, c.head_dim}).transpose(1, 2);
        torch::Tensor k =
            torch::linear(h, layer.k).view({1, n, c.kv_heads, c.head_dim}).transpose(1, 2);
        torch::Tensor v =
            torch::linear(h, layer.v).view({1, n, c.kv_heads, c.head_dim}).transpose(1, 2);
        q = q * cos + rotate_half(q) * sin;
        k = k * cos + rotate_half(k) * sin;
        k = k.repeat_interleave(c.heads / c.kv_heads, 1);
        v = v.repeat_interleave(c.heads / c.kv_heads, 1);
        torch::Tensor weights =
            torch::matmul(q, k.transpose(2, 3)) / std::sqrt(double(c.head_dim)) + mask;
        weights = torch::softmax(weights, -1, torch::kFloat).to(m.dtype);
        const torch::Tensor attended =
            torch::matmul(weights, v).transpose(1, 2).reshape({1, n, c.heads * c.head_dim});
        x = x + torch::linear(attended, layer.o);
        const torch::Tensor g = rms_norm(x, layer.mlp_norm, c.eps);
        x = x +
            torch::linear(torch::silu(torch::linear(g, layer.gate)) * torch::linear(g, layer.up),
                          layer.down);
    }
    return torch::linear(rms_norm(x, m.final_norm, c.eps), m.lm_head).select(0, 0);
}

void expect_close(const torch::Tensor& actual,
                  const torch::Tensor& expected,
                  const std::string& what) {
    const double difference = (actual - expected).abs().max().item<double>();
    const double magnitude = expected.abs().max().item<double>();
    if (!(difference <= 1e-4 * magnitude)) {
        std::cerr << "libtorch_llama_bench: " << what << " differs: max |difference| " << difference
                  << ", max |expected| " << magnitude << '\n';
        std::abort();
    }
}

// The cache bookkeeping on a 2-layer model of hidden size 64 in float32.
void check_cache_bookkeeping() {
    c10::InferenceMode inference;
    Config tiny;
    tiny.vocab = 101;
    tiny.hidden = 64;
    tiny.intermediate = 172;
    tiny.layers = 2;
    tiny.heads = 4;
    tiny.kv_heads = 2;
    tiny.head_dim = 16;
    constexpr std::int64_t prompt = 8;
    Llama model(tiny, torch::kFloat, 16, 3);
    torch::manual_seed(4);
    const torch::Tensor tokens = torch::randint(tiny.vocab, {prompt + 1}, torch::kLong);
    const torch::Tensor full = model.forward(tokens, 0, /*all_logits=*/true);
    expect_close(full, reference_logits(model, tokens), "the causal forward against HF's");
    model.forward(tokens.narrow(0, 0, prompt), 0, false);
    expect_close(model.forward(tokens.narrow(0, prompt, 1), prompt, false)[0],
                 full[prompt],
                 "decoding after a prefill");
    for (std::int64_t p = 0; p <= prompt; ++p) {
        expect_close(model.forward(tokens.narrow(0, p, 1), p, false)[0],
                     full[p],
                     "decoding position " + std::to_string(p) + " token by token");
    }
    model.matrix_vector = true;
    expect_close(model.forward(tokens.narrow(0, prompt, 1), prompt, false)[0],
                 full[prompt],
                 "decoding with matrix-vector products");
}

Config benchmark_config;
torch::Tensor prompt_tokens;

// The model of `dtype`, built on first use; the other dtype's is freed first.
Llama& model_of(torch::ScalarType dtype) {
    static std::unique_ptr<Llama> current;
    if (!current || current->dtype != dtype) {
        current.reset();
        current = std::make_unique<Llama>(benchmark_config, dtype, context, 1);
    }
    return *current;
}

std::string label(const Llama& model) {
    return std::string("LibTorch ") + TORCH_VERSION + ", " + std::to_string(at::get_num_threads()) +
           " threads, " + std::to_string(model.config.layers) + " layers";
}

void BM_LlamaDecode(benchmark::State& state, torch::ScalarType dtype, bool matrix_vector) {
    c10::InferenceMode inference;
    Llama& model = model_of(dtype);
    model.matrix_vector = matrix_vector;
    if (model.position < prompt_length) {
        // Caches filled once per model with the prompt (the check above shows
        // that a prefill writes what token-by-token steps write).
        model.token = model.forward(prompt_tokens, 0, false).argmax().item<std::int64_t>();
        model.position = prompt_length;
    }
    const torch::Tensor token = torch::zeros({1}, torch::kLong);
    for (auto _ : state) {
        if (model.position == context) {
            model.position = prompt_length;
        }
        token.fill_(model.token);
        const torch::Tensor logits = model.forward(token, model.position, false);
        model.token = logits.argmax().item<std::int64_t>();
        ++model.position;
    }
    model.matrix_vector = false;
    const auto weight_bytes = static_cast<double>(model.weight_bytes_per_token());
    state.counters["tokens/s"] =
        benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["weight_bytes"] = benchmark::Counter(
        weight_bytes, benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
    // The weight bytes read per second: against copy_bandwidth_bench's BM_ReadBandwidth.
    state.counters["weight_bytes/s"] = benchmark::Counter(
        weight_bytes, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1024);
    state.SetLabel(label(model));
}

void BM_LlamaPrefill(benchmark::State& state, torch::ScalarType dtype) {
    c10::InferenceMode inference;
    Llama& model = model_of(dtype);
    torch::Tensor logits;
    for (auto _ : state) {
        logits = model.forward(prompt_tokens, 0, false);
        benchmark::DoNotOptimize(logits.data_ptr());
    }
    model.token = logits.argmax().item<std::int64_t>();
    model.position = prompt_length;
    state.counters["tokens/s"] =
        benchmark::Counter(double(prompt_length), benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(label(model));
}

// `--threads=N` when given, else TOPOS_THREADS, else 1.
int thread_count(int& argc, char** argv) {
    bool flagged = false;
    for (int i = 0; i < argc; ++i) {
        flagged = flagged || std::strncmp(argv[i], "--threads=", 10) == 0;
    }
    const int from_flag = take_thread_count(argc, argv);
    const char* environment = std::getenv("TOPOS_THREADS");
    if (flagged || environment == nullptr || std::atoi(environment) < 1) {
        return from_flag;
    }
    return std::atoi(environment);
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = thread_count(argc, argv);
    at::set_num_threads(threads);
    using SetThreads = void (*)(int);
    if (void* symbol = dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) {
        reinterpret_cast<SetThreads>(symbol)(threads);
    }
    if (const char* layers = std::getenv("TOPOS_LLAMA_LAYERS"); layers != nullptr) {
        benchmark_config.layers = std::atoi(layers);
        if (benchmark_config.layers < 1) {
            std::cerr << "libtorch_llama_bench: TOPOS_LLAMA_LAYERS must be a positive count\n";
            return 1;
        }
    }
    check_cache_bookkeeping();
    torch::manual_seed(2);
    prompt_tokens = torch::randint(benchmark_config.vocab, {prompt_length}, torch::kLong);

    // In this order, so that each dtype's model is built once. The decode
    // rows use torch::linear (HF's path); f32_mv takes Tensor::mv instead, as
    // OpenBLAS's gemv reads f32 weights faster than its 1-row sgemm.
    const auto timed = [](benchmark::internal::Benchmark* benchmark) {
        benchmark->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
    };
    timed(benchmark::RegisterBenchmark("BM_LlamaDecode/f32", BM_LlamaDecode, torch::kFloat, false));
    timed(
        benchmark::RegisterBenchmark("BM_LlamaDecode/f32_mv", BM_LlamaDecode, torch::kFloat, true));
    timed(benchmark::RegisterBenchmark("BM_LlamaPrefill/f32", BM_LlamaPrefill, torch::kFloat));
    timed(benchmark::RegisterBenchmark(
        "BM_LlamaDecode/bf16", BM_LlamaDecode, torch::kBFloat16, false));
    timed(benchmark::RegisterBenchmark("BM_LlamaPrefill/bf16", BM_LlamaPrefill, torch::kBFloat16));
    benchmark::AddCustomContext("libtorch_threads", std::to_string(threads));
    benchmark::AddCustomContext("llama_layers", std::to_string(benchmark_config.layers));
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
