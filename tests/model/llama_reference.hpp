// Hugging Face's Llama formulas (LlamaRMSNorm, LlamaRotaryEmbedding with
// rotate_half, LlamaAttention with repeat_kv, LlamaMLP, LlamaForCausalLM),
// written out by hand in double over row-major vectors: the reference the
// recorded modules are checked against.
#pragma once

#include <topos/model/llama.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace topos::test::llama {

using Rows = std::vector<double>;

// A Llama small enough to check by hand: 2 layers of width 8, 2 query heads
// sharing 1 key/value head, a vocabulary of 13.
inline LlamaConfig tiny_config(bool tied) {
    return {.vocabulary = 13,
            .hidden = 8,
            .intermediate = 12,
            .layers = 2,
            .heads = 2,
            .key_value_heads = 1,
            .rope_theta = 10000.0,
            .rms_norm_eps = 1e-5,
            .max_positions = 16,
            .tied_embeddings = tied};
}

// TinyLlama 1.1B's sizes, as its config.json gives them.
inline LlamaConfig tiny_llama_1_1b() {
    return {.vocabulary = 32000,
            .hidden = 2048,
            .intermediate = 5632,
            .layers = 22,
            .heads = 32,
            .key_value_heads = 4,
            .rope_theta = 10000.0,
            .rms_norm_eps = 1e-5,
            .max_positions = 2048,
            .tied_embeddings = false};
}

// x [rows, in] w [in, out]
inline Rows product(const Rows& x, const Rows& w, std::size_t in, std::size_t out) {
    const std::size_t rows = x.size() / in;
    Rows y(rows * out, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t o = 0; o < out; ++o) {
            double sum = 0;
            for (std::size_t i = 0; i < in; ++i) {
                sum += x[r * in + i] * w[i * out + o];
            }
            y[r * out + o] = sum;
        }
    }
    return y;
}

inline Rows rms_norm(const Rows& x, const Rows& weight, double epsilon) {
    const std::size_t features = weight.size();
    Rows y(x.size());
    for (std::size_t r = 0; r < x.size() / features; ++r) {
        double square = 0;
        for (std::size_t f = 0; f < features; ++f) {
            square += x[r * features + f] * x[r * features + f];
        }
        const double scale = 1.0 / std::sqrt(square / static_cast<double>(features) + epsilon);
        for (std::size_t f = 0; f < features; ++f) {
            y[r * features + f] = x[r * features + f] * scale * weight[f];
        }
    }
    return y;
}

// Hugging Face's float32 angle of element i (< d / 2) at `position`.
inline float rotary_angle(std::size_t position, std::size_t i, std::size_t d, double theta) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(d);
    const float frequency = 1.0F / static_cast<float>(std::pow(theta, double{exponent}));
    return static_cast<float>(position) * frequency;
}

// Rotates every head of x [positions, heads, d] by rotate_half's rule, in
// place; cos and sin rounded to float as Hugging Face's float32 tables hold them.
inline void rotate(Rows& x, std::size_t heads, std::size_t d, double theta) {
    const std::size_t half = d / 2;
    for (std::size_t p = 0; p < x.size() / (heads * d); ++p) {
        for (std::size_t h = 0; h < heads; ++h) {
            double* head = &x[(p * heads + h) * d];
            for (std::size_t i = 0; i < half; ++i) {
                const double angle = rotary_angle(p, i, d, theta);
                const double c = static_cast<float>(std::cos(angle));
                const double s = static_cast<float>(std::sin(angle));
                const double first = head[i];
                const double second = head[i + half];
                head[i] = first * c - second * s;
                head[i + half] = second * c + first * s;
            }
        }
    }
}

struct AttentionWeights {
    Rows q, k, v, o;  // each [in, out]
};

// One sequence x [positions, width]: causal grouped-query attention.
inline Rows attention(const Rows& x,
                      const AttentionWeights& w,
                      std::size_t width,
                      std::size_t heads,
                      std::size_t key_value_heads,
                      double theta) {
    const std::size_t d = width / heads;
    const std::size_t positions = x.size() / width;
    Rows q = product(x, w.q, width, width);
    Rows k = product(x, w.k, width, key_value_heads * d);
    const Rows v = product(x, w.v, width, key_value_heads * d);
    rotate(q, heads, d, theta);
    rotate(k, key_value_heads, d, theta);
    Rows context(positions * width, 0.0);
    for (std::size_t h = 0; h < heads; ++h) {
        const std::size_t g = h / (heads / key_value_heads);  // repeat_kv
        for (std::size_t t = 0; t < positions; ++t) {
            Rows scores(t + 1);
            double largest = -std::numeric_limits<double>::infinity();
            for (std::size_t u = 0; u <= t; ++u) {
                double dot = 0;
                for (std::size_t e = 0; e < d; ++e) {
                    dot += q[t * width + h * d + e] * k[(u * key_value_heads + g) * d + e];
                }
                scores[u] = dot / std::sqrt(static_cast<double>(d));
                largest = std::max(largest, scores[u]);
            }
            double total = 0;
            for (double& s : scores) {
                s = std::exp(s - largest);
                total += s;
            }
            for (std::size_t e = 0; e < d; ++e) {
                double sum = 0;
                for (std::size_t u = 0; u <= t; ++u) {
                    sum += scores[u] / total * v[(u * key_value_heads + g) * d + e];
                }
                context[t * width + h * d + e] = sum;
            }
        }
    }
    return product(context, w.o, width, width);
}

inline Rows swiglu(const Rows& x,
                   const Rows& gate,
                   const Rows& up,
                   const Rows& down,
                   std::size_t width,
                   std::size_t intermediate) {
    Rows gated = product(x, gate, width, intermediate);
    const Rows lifted = product(x, up, width, intermediate);
    for (std::size_t i = 0; i < gated.size(); ++i) {
        gated[i] = gated[i] / (1.0 + std::exp(-gated[i])) * lifted[i];
    }
    return product(gated, down, intermediate, width);
}

}  // namespace topos::test::llama
