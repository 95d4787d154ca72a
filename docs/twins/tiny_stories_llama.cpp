// The LibTorch twin of examples/gallery/tiny_stories_llama.cpp: the same
// Llama-family model (Hugging Face LlamaForCausalLM's formulas in plain torch
// ops), trained on the same bytes of data/tiny_stories.txt with the same
// batches' shape, optimizer, schedule and clipping, to time LibTorch's training
// step and show its loss falls alike (its initial values are its own).
//   tiny_stories_llama [threads]
// The threads set LibTorch's pool and OpenBLAS's (Debian's LibTorch multiplies
// with OpenBLAS, whose own pool LibTorch never sizes).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <torch/torch.h>
#include <vector>

namespace {

constexpr std::int64_t vocab = 256;
constexpr std::int64_t hidden = 192;
constexpr std::int64_t intermediate = 512;
constexpr std::int64_t layer_count = 4;
constexpr std::int64_t heads = 6;
constexpr std::int64_t kv_heads = 2;
constexpr std::int64_t head_dim = hidden / heads;  // 32
constexpr double rope_theta = 10000.0;
constexpr double eps = 1e-5;
constexpr std::int64_t batch = 8;
constexpr std::int64_t window = 64;
constexpr int steps = 200;
constexpr int warmup = 20;
constexpr double peak_lr = 3e-3;
constexpr double final_lr = 3e-4;

// HF's LlamaRMSNorm: x * rsqrt(mean(x^2) + eps) * weight.
torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& weight) {
    return x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * weight;
}

torch::Tensor rotate_half(const torch::Tensor& x) {
    const std::int64_t half = x.size(-1) / 2;
    return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

struct Layer {
    torch::Tensor attention_norm, q, k, v, o;  // projections [out, in], no bias
    torch::Tensor mlp_norm, gate, up, down;
};

struct Llama {
    torch::Tensor embedding, final_norm, lm_head;  // lm_head untied, [vocab, hidden]
    std::vector<Layer> layers;
    torch::Tensor cos, sin;  // [window, head_dim]
    torch::Tensor masked;    // [window, window]: true where the key comes after the query

    Llama() {
        const auto matrix = [](std::int64_t rows, std::int64_t columns) {
            return torch::randn({rows, columns}).mul_(0.02).requires_grad_();
        };
        const auto norm = [] { return torch::ones({hidden}).requires_grad_(); };
        embedding = matrix(vocab, hidden);
        for (std::int64_t i = 0; i < layer_count; ++i) {
            layers.push_back({norm(),
                              matrix(heads * head_dim, hidden),
                              matrix(kv_heads * head_dim, hidden),
                              matrix(kv_heads * head_dim, hidden),
                              matrix(hidden, heads * head_dim),
                              norm(),
                              matrix(intermediate, hidden),
                              matrix(intermediate, hidden),
                              matrix(hidden, intermediate)});
        }
        final_norm = norm();
        lm_head = matrix(vocab, hidden);
        // HF's rotary tables: inv_freq = 1 / theta^(arange(0, d, 2) / d), the
        // angles position * inv_freq concatenated twice.
        const torch::Tensor inv_freq =
            1.0 / torch::pow(rope_theta, torch::arange(0, head_dim, 2).to(torch::kFloat) / 32.0);
        const torch::Tensor angles = torch::outer(torch::arange(window, torch::kFloat), inv_freq);
        const torch::Tensor doubled = torch::cat({angles, angles}, -1);
        cos = doubled.cos();
        sin = doubled.sin();
        masked = torch::ones({window, window}, torch::kBool).triu(1);
    }

    std::vector<torch::Tensor> parameters() const {
        std::vector<torch::Tensor> all{embedding};
        for (const Layer& l : layers) {
            all.insert(all.end(),
                       {l.attention_norm, l.q, l.k, l.v, l.o, l.mlp_norm, l.gate, l.up, l.down});
        }
        all.push_back(final_norm);
        all.push_back(lm_head);
        return all;
    }

    // tokens [B, T] -> logits [B, T, vocab]
    torch::Tensor forward(const torch::Tensor& tokens) const {
        const std::int64_t b = tokens.size(0);
        const std::int64_t t = tokens.size(1);
        const std::int64_t group = heads / kv_heads;
        const double scale = 1.0 / std::sqrt(double(head_dim));
        const torch::Tensor cosines = cos.narrow(0, 0, t);
        const torch::Tensor sines = sin.narrow(0, 0, t);
        const torch::Tensor mask = masked.narrow(0, 0, t).narrow(1, 0, t);
        torch::Tensor x = torch::embedding(embedding, tokens);  // [B, T, hidden]
        for (const Layer& layer : layers) {
            const torch::Tensor h = rms_norm(x, layer.attention_norm);
            // [B, heads, T, d] and [B, kv_heads, T, d]
            torch::Tensor q =
                torch::linear(h, layer.q).view({b, t, heads, head_dim}).transpose(1, 2);
            torch::Tensor k =
                torch::linear(h, layer.k).view({b, t, kv_heads, head_dim}).transpose(1, 2);
            torch::Tensor v =
                torch::linear(h, layer.v).view({b, t, kv_heads, head_dim}).transpose(1, 2);
            q = q * cosines + rotate_half(q) * sines;
            k = k * cosines + rotate_half(k) * sines;
            // HF's repeat_kv: query head h reads key/value head h / group.
            k = k.unsqueeze(2).expand({b, kv_heads, group, t, head_dim}).reshape({b, heads, t, -1});
            v = v.unsqueeze(2).expand({b, kv_heads, group, t, head_dim}).reshape({b, heads, t, -1});
            const torch::Tensor scores =
                torch::matmul(q, k.transpose(2, 3)).mul(scale).masked_fill(mask, -INFINITY);
            const torch::Tensor attended = torch::matmul(torch::softmax(scores, -1), v);
            x = x + torch::linear(attended.transpose(1, 2).reshape({b, t, hidden}), layer.o);
            const torch::Tensor g = rms_norm(x, layer.mlp_norm);
            x = x + torch::linear(
                        torch::silu(torch::linear(g, layer.gate)) * torch::linear(g, layer.up),
                        layer.down);
        }
        return torch::linear(rms_norm(x, final_norm), lm_head);
    }
};

// Mean cross-entropy of the next byte over every position of the windows
// starting at `starts` in `bytes`.
torch::Tensor loss_at(const Llama& model,
                      const torch::Tensor& bytes,
                      const std::vector<std::int64_t>& starts) {
    std::vector<torch::Tensor> inputs;
    std::vector<torch::Tensor> targets;
    for (const std::int64_t s : starts) {
        inputs.push_back(bytes.narrow(0, s, window));
        targets.push_back(bytes.narrow(0, s + 1, window));
    }
    const torch::Tensor logits = model.forward(torch::stack(inputs));
    return torch::nn::functional::cross_entropy(logits.reshape({-1, vocab}),
                                                torch::stack(targets).reshape({-1}));
}

double learning_rate(int step) {
    if (step < warmup) {
        return peak_lr * step / warmup;
    }
    const double progress = std::min(1.0, double(step - warmup) / (steps - warmup));
    return final_lr + (peak_lr - final_lr) * (1 + std::cos(M_PI * progress)) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) {
        const int threads = std::atoi(argv[1]);
        if (threads < 1) {
            std::cerr << "tiny_stories_llama: the thread count must be positive\n";
            return 1;
        }
        torch::set_num_threads(threads);
        using SetThreads = void (*)(int);
        if (void* symbol = dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) {
            reinterpret_cast<SetThreads>(symbol)(threads);
        }
    }

    std::ifstream file(TOPOS_DATA "/tiny_stories.txt", std::ios::binary);
    const std::vector<unsigned char> text{std::istreambuf_iterator<char>(file),
                                          std::istreambuf_iterator<char>()};
    const torch::Tensor all = torch::tensor(std::vector<std::int64_t>(text.begin(), text.end()));
    const std::int64_t train_size = all.size(0) * 9 / 10;
    const torch::Tensor train = all.narrow(0, 0, train_size);
    const torch::Tensor validation = all.narrow(0, train_size, all.size(0) - train_size);

    torch::manual_seed(1);
    const Llama model;
    const std::vector<torch::Tensor> parameters = model.parameters();
    std::int64_t parameter_count = 0;
    for (const torch::Tensor& p : parameters) {
        parameter_count += p.numel();
    }
    std::cout << "LibTorch twin: " << parameter_count << " parameters, " << train_size
              << " training bytes, " << validation.size(0) << " validation bytes, "
              << torch::get_num_threads() << " threads\n";

    torch::optim::AdamW adamw(
        parameters,
        torch::optim::AdamWOptions(peak_lr).betas({0.9, 0.999}).eps(1e-8).weight_decay(0.01));
    auto& options = static_cast<torch::optim::AdamWOptions&>(adamw.param_groups()[0].options());
    std::mt19937 random(1);
    std::uniform_int_distribution<std::int64_t> start_in(0, train_size - window - 1);
    const auto began = std::chrono::steady_clock::now();
    for (int step = 0; step < steps; ++step) {
        std::vector<std::int64_t> starts(batch);
        for (std::int64_t& s : starts) {
            s = start_in(random);
        }
        adamw.zero_grad();
        const torch::Tensor loss = loss_at(model, train, starts);
        loss.backward();
        torch::nn::utils::clip_grad_norm_(parameters, 1.0);
        options.lr(learning_rate(step));
        adamw.step();
        if (step == 0 || (step + 1) % 25 == 0) {
            std::cout << "step " << step + 1 << "/" << steps << "  loss " << loss.item<float>()
                      << '\n';
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::cout << steps << " steps in " << seconds << " s: " << seconds * 1000 / steps
              << " ms per step\n";

    torch::NoGradGuard no_grad;
    std::vector<std::int64_t> starts;
    const std::int64_t last_start = validation.size(0) - window - 1;
    for (std::int64_t i = 0; i < 64; ++i) {
        starts.push_back(i * last_start / 63);
    }
    std::cout << "validation loss: " << loss_at(model, validation, starts).item<float>()
              << " nats per byte (uniform guess: " << std::log(256.0) << ")\n";
}
