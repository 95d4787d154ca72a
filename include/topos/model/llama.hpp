// The Llama family's decoder (Llama 2, TinyLlama and their kin), recorded from
// the ordinary op surface as Hugging Face's LlamaForCausalLM computes it:
//   h      = embed_tokens[tokens]
//   layer: h = h + self_attn(input_layernorm(h))      (GroupedQueryAttention)
//          h = h + mlp(post_attention_layernorm(h))    (SwiGluMlp)
//   logits = lm_head(norm(h))                          (lm_head = embed_tokens^T when tied)
// Parameters are named as Hugging Face names them ("model.embed_tokens.weight",
// "model.layers.0.self_attn.q_proj.weight", ..., "lm_head.weight"), so a
// released checkpoint loads by name.
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/embedding.hpp>
#include <topos/model/grouped_query_attention.hpp>
#include <topos/model/init.hpp>
#include <topos/model/linear.hpp>
#include <topos/model/named.hpp>
#include <topos/model/rms_norm.hpp>
#include <topos/model/swiglu.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos {

// A Llama's sizes, as config.json gives them (the key in parentheses). The
// defaults are Llama 2 7B's.
struct LlamaConfig {
    std::size_t vocabulary = 32000;    // vocab_size
    std::size_t hidden = 4096;         // hidden_size
    std::size_t intermediate = 11008;  // intermediate_size
    std::size_t layers = 32;           // num_hidden_layers
    std::size_t heads = 32;            // num_attention_heads
    std::size_t key_value_heads = 32;  // num_key_value_heads
    double rope_theta = 10000.0;       // rope_theta
    double rms_norm_eps = 1e-6;        // rms_norm_eps
    std::size_t max_positions = 2048;  // max_position_embeddings
    bool tied_embeddings = false;      // tie_word_embeddings

    // hidden / heads.
    std::size_t head_width() const { return heads == 0 ? 0 : hidden / heads; }

    // The number of parameters a model of these sizes holds.
    std::size_t parameter_count() const;

    // Throws ShapeError naming the first size that cannot make a model.
    void check() const;

    // Memberwise equality.
    friend bool operator==(const LlamaConfig&, const LlamaConfig&) = default;
};

// One decoder layer: pre-norm attention and pre-norm MLP, each added back.
template <Element T>
class LlamaDecoderLayer {
public:
    // The attention's projections, then the MLP's, drawn from `weight_init`;
    // the norms' weights are ones. Throws ShapeError unless the heads split
    // hidden into even head widths and key_value_heads divides heads.
    template <class Initialiser>
    LlamaDecoderLayer(Tape<T>& tape, const LlamaConfig& config, Initialiser&& weight_init)
        : LlamaDecoderLayer(tape, config, weight_init, init::constant(1.0)) {}

    // The same, the two norms' weights drawn in turn from `norm_init`.
    template <class Initialiser, class NormInitialiser>
    LlamaDecoderLayer(Tape<T>& tape,
                      const LlamaConfig& config,
                      Initialiser&& weight_init,
                      NormInitialiser&& norm_init)
        : input_norm_(tape, config.hidden, config.rms_norm_eps, norm_init),
          attention_(tape,
                     {.width = config.hidden,
                      .heads = config.heads,
                      .key_value_heads = config.key_value_heads,
                      .rope_theta = config.rope_theta},
                     weight_init),
          post_attention_norm_(tape, config.hidden, config.rms_norm_eps, norm_init),
          mlp_(tape, config.hidden, config.intermediate, weight_init) {}

    // h [batch, sequence, hidden] at `positions`, to [batch, sequence, hidden].
    Value<T> express(const Value<T>& h, const AttentionPositions<T>& positions) const;

    // h at positions 0 .. sequence - 1, causally.
    Value<T> express(const Value<T>& h) const;

    // h's tokens at `positions` of the layer's key/value `cache`, the cache
    // with their keys and values written set in `updated`.
    Value<T> express(const Value<T>& h,
                     const CachedPositions<T>& positions,
                     const KeyValueCache<T>& cache,
                     KeyValueCache<T>& updated) const;

    // input_layernorm, self_attn, post_attention_layernorm, mlp, each in its own order.
    std::vector<Value<T>> parameters() const;

    // "input_layernorm.", "self_attn.", "post_attention_layernorm.", "mlp."
    // before each part's own names.
    std::vector<NamedParameter> named_parameters() const {
        return topos::named_parameters({{"input_layernorm", input_norm_},
                                        {"self_attn", attention_},
                                        {"post_attention_layernorm", post_attention_norm_},
                                        {"mlp", mlp_}});
    }

    // The norm before the attention.
    const RmsNorm<T>& input_norm() const { return input_norm_; }

    // The attention.
    const GroupedQueryAttention<T>& attention() const { return attention_; }

    // The norm before the MLP.
    const RmsNorm<T>& post_attention_norm() const { return post_attention_norm_; }

    // The MLP.
    const SwiGluMlp<T>& mlp() const { return mlp_; }

    // "LlamaDecoderLayer", then each part's lines, indented.
    std::string describe() const;

private:
    // attended + mlp(post_attention_layernorm(attended)).
    Value<T> with_mlp(const Value<T>& attended) const;

    RmsNorm<T> input_norm_;
    GroupedQueryAttention<T> attention_;
    RmsNorm<T> post_attention_norm_;
    SwiGluMlp<T> mlp_;
};

// Which tokens' logits a cached Llama run computes.
enum class LogitsOf : std::uint8_t {
    EveryToken,
    LastToken,
};

// LlamaForCausalLM: token ids to next-token logits.
template <Element T>
class Llama {
public:
    // Throws ShapeError for sizes config.check() refuses. Every projection and
    // the embedding draw from `weight_init` in the order named_parameters()
    // lists them (Hugging Face draws normal(0, initializer_range = 0.02));
    // the norms' weights are ones.
    template <class Initialiser>
    Llama(Tape<T>& tape, const LlamaConfig& config, Initialiser&& weight_init)
        : Llama(tape, config, weight_init, init::constant(1.0)) {}

    // The same, the norms' weights drawn from `norm_init` in the order
    // named_parameters() lists them (LlamaFolder's initialisers read a
    // released checkpoint's tensors this way).
    template <class Initialiser, class NormInitialiser>
    Llama(Tape<T>& tape,
          const LlamaConfig& config,
          Initialiser&& weight_init,
          NormInitialiser&& norm_init)
        : config_(checked(config)),
          embed_tokens_(tape, config.vocabulary, config.hidden, weight_init),
          layers_(make_layers(tape, config, weight_init, norm_init)),
          norm_(tape, config.hidden, config.rms_norm_eps, norm_init) {
        if (!config.tied_embeddings) {
            lm_head_.emplace(tape, config.hidden, config.vocabulary, weight_init, Bias::None);
        }
    }

    // Token ids [batch, sequence] (an indices value: Tape::indices) to logits
    // [batch, sequence, vocabulary] at positions 0 .. sequence - 1. A tape
    // whose element type cannot hold every token id exactly (bf16 holds
    // integers up to 256) refuses a larger one when it is fed; look the rows
    // up with embed() and call express_embedded instead.
    Value<T> express(const Value<T>& tokens) const;

    // Embedded tokens [batch, sequence, hidden] at `positions` to logits.
    Value<T> express_embedded(const Value<T>& embedded,
                              const AttentionPositions<T>& positions) const;

    // Token ids [batch, tokens] at `positions` of the layers' key/value
    // `caches` (one a layer) to logits; `updated` is set to the caches with
    // the tokens' keys and values written. A prefill of a prompt then one
    // token a step gives, position by position, express()'s bits over the
    // whole sequence.
    Value<T> express(const Value<T>& tokens,
                     const CachedPositions<T>& positions,
                     const std::vector<KeyValueCache<T>>& caches,
                     std::vector<KeyValueCache<T>>& updated) const;

    // The same from embedded tokens [batch, tokens, hidden]; with
    // LogitsOf::LastToken, only the last token's logits, [batch, 1,
    // vocabulary] (what a prefill reads: the same bits as that row of all).
    Value<T> express_embedded(const Value<T>& embedded,
                              const CachedPositions<T>& positions,
                              const std::vector<KeyValueCache<T>>& caches,
                              std::vector<KeyValueCache<T>>& updated,
                              LogitsOf which = LogitsOf::EveryToken) const;

    // Inputs of `tape` for every layer's cache of `context` positions, zeros
    // of [batch, key_value_heads, context, head width] by default.
    std::vector<KeyValueCache<T>> cache_inputs(Tape<T>& tape,
                                               std::size_t batch,
                                               std::size_t context) const;

    // Inputs of `tape` for the positions of `count` tokens in a cache of
    // `context` positions (by default positions 0 .. count - 1); a run feeds
    // cached_position_tensors of the tokens' own positions.
    CachedPositions<T> position_inputs(Tape<T>& tape, std::size_t count, std::size_t context) const;

    // The embedding table's rows of `tokens` ([batch, sequence] of ids) as a
    // tensor [batch, sequence, hidden], read from `table` (this model's
    // embedding table in some Parameters). Throws IndexError for an id
    // outside the vocabulary.
    Tensor<T> embed(const Tensor<T>& table,
                    const Shape& tokens_shape,
                    std::span<const std::int64_t> tokens) const;

    // Every parameter, in named_parameters()'s order.
    std::vector<Value<T>> parameters() const;

    // "model.embed_tokens.weight", "model.layers.{i}. ...", "model.norm.weight",
    // then "lm_head.weight" unless the embeddings are tied.
    std::vector<NamedParameter> named_parameters() const;

    // The sizes it was built with.
    const LlamaConfig& config() const { return config_; }

    // The token embedding.
    const Embedding<T>& embed_tokens() const { return embed_tokens_; }

    // The decoder layers.
    const std::vector<LlamaDecoderLayer<T>>& layers() const { return layers_; }

    // The final norm.
    const RmsNorm<T>& norm() const { return norm_; }

    // The output projection, [hidden, vocabulary]; absent when tied.
    const std::optional<Linear<T>>& lm_head() const { return lm_head_; }

    // "Llama(...)" with its sizes and parameter count, then the first layer's lines.
    std::string describe() const;

private:
    static void check_tokens(const Value<T>& tokens);
    // norm, then lm_head (or the embedding's transpose): h to logits.
    Value<T> logits(const Value<T>& h) const;

    static const LlamaConfig& checked(const LlamaConfig& config) {
        config.check();
        return config;
    }

    template <class Initialiser, class NormInitialiser>
    static std::vector<LlamaDecoderLayer<T>> make_layers(Tape<T>& tape,
                                                         const LlamaConfig& config,
                                                         Initialiser& weight_init,
                                                         NormInitialiser& norm_init) {
        std::vector<LlamaDecoderLayer<T>> layers;
        layers.reserve(config.layers);
        for (std::size_t i = 0; i < config.layers; ++i) {
            layers.emplace_back(tape, config, weight_init, norm_init);
        }
        return layers;
    }

    LlamaConfig config_;
    Embedding<T> embed_tokens_;
    std::vector<LlamaDecoderLayer<T>> layers_;
    RmsNorm<T> norm_;
    std::optional<Linear<T>> lm_head_;
};

extern template class LlamaDecoderLayer<float>;
extern template class LlamaDecoderLayer<double>;
extern template class LlamaDecoderLayer<bf16>;
extern template class Llama<float>;
extern template class Llama<double>;
extern template class Llama<bf16>;

}  // namespace topos
