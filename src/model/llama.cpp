// Llama: the configuration's checks and count, the decoder layer's residual
// wiring, and the model's embedding, layers, final norm and output projection
// (the embedding's transpose when tied), named as Hugging Face names them.
#include "graph/record.hpp"
#include "model/embedding_rows.hpp"
#include "model/indented.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/llama.hpp>

#include <cmath>
#include <sstream>

namespace topos {

std::size_t LlamaConfig::parameter_count() const {
    const std::size_t key_value_width = head_width() * key_value_heads;
    const std::size_t attention = 2 * hidden * hidden + 2 * hidden * key_value_width;
    const std::size_t mlp = 3 * hidden * intermediate;
    const std::size_t layer = attention + mlp + 2 * hidden;
    const std::size_t embeddings = vocabulary * hidden * (tied_embeddings ? 1 : 2);
    return embeddings + layers * layer + hidden;
}

void LlamaConfig::check() const {
    const auto refuse = [](const std::string& what) {
        throw ShapeError("this Llama configuration cannot make a model: " + what);
    };
    if (vocabulary == 0 || hidden == 0 || intermediate == 0 || layers == 0 || max_positions == 0) {
        refuse(
            "vocab_size, hidden_size, intermediate_size, num_hidden_layers and "
            "max_position_embeddings must all be positive");
    }
    if (heads == 0 || hidden % heads != 0 || head_width() % 2 != 0) {
        refuse("num_attention_heads (" + std::to_string(heads) + ") must divide hidden_size (" +
               std::to_string(hidden) + ") into heads of an even width");
    }
    if (key_value_heads == 0 || heads % key_value_heads != 0) {
        refuse("num_key_value_heads (" + std::to_string(key_value_heads) +
               ") must divide num_attention_heads (" + std::to_string(heads) + ")");
    }
    if (!(rope_theta > 1) || !(rms_norm_eps > 0) || !std::isfinite(rope_theta) ||
        !std::isfinite(rms_norm_eps)) {
        refuse("rope_theta must be finite and above 1, and rms_norm_eps finite and positive; got " +
               std::to_string(rope_theta) + " and " + std::to_string(rms_norm_eps));
    }
}

template <Element T>
Value<T> LlamaDecoderLayer<T>::express(const Value<T>& h,
                                       const AttentionPositions<T>& positions) const {
    const detail::RecordScope scope(h);
    const NameScope named("LlamaDecoderLayer");
    return with_mlp(h + attention_.express(input_norm_.express(h), positions));
}

template <Element T>
Value<T> LlamaDecoderLayer<T>::with_mlp(const Value<T>& attended) const {
    return attended + mlp_.express(post_attention_norm_.express(attended));
}

template <Element T>
Value<T> LlamaDecoderLayer<T>::express(const Value<T>& h) const {
    const std::size_t sequence = h.shape().rank() == 3 ? h.shape()[1] : 0;
    Tape<T> tape = h.tape();
    return express(h, causal_positions(tape, attention_.rotary(), sequence));
}

template <Element T>
Value<T> LlamaDecoderLayer<T>::express(const Value<T>& h,
                                       const CachedPositions<T>& positions,
                                       const KeyValueCache<T>& cache,
                                       KeyValueCache<T>& updated) const {
    const detail::RecordScope scope(h);
    const NameScope named("LlamaDecoderLayer");
    return with_mlp(h + attention_.express(input_norm_.express(h), positions, cache, updated));
}

template <Element T>
std::vector<Value<T>> LlamaDecoderLayer<T>::parameters() const {
    std::vector<Value<T>> all = input_norm_.parameters();
    for (const auto& part :
         {attention_.parameters(), post_attention_norm_.parameters(), mlp_.parameters()}) {
        all.insert(all.end(), part.begin(), part.end());
    }
    return all;
}

template <Element T>
std::string LlamaDecoderLayer<T>::describe() const {
    std::ostringstream out;
    out << "LlamaDecoderLayer\n"
        << "  " << detail::indented("input_layernorm " + input_norm_.describe()) << '\n'
        << "  " << detail::indented("self_attn " + attention_.describe()) << '\n'
        << "  " << detail::indented("post_attention_layernorm " + post_attention_norm_.describe())
        << '\n'
        << "  " << detail::indented("mlp " + mlp_.describe());
    return out.str();
}

template <Element T>
void Llama<T>::check_tokens(const Value<T>& tokens) {
    if (tokens.shape().rank() != 2) {
        throw ShapeError("a Llama reads token ids [batch, tokens]; node " +
                         std::to_string(tokens.index()) + " has shape " + tokens.shape().str());
    }
}

template <Element T>
Value<T> Llama<T>::logits(const Value<T>& h) const {
    const Value<T> normalised = norm_.express(h);
    if (lm_head_) {
        return lm_head_->express(normalised);
    }
    return normalised.matmul(embed_tokens_.table().transpose());
}

template <Element T>
Value<T> Llama<T>::express(const Value<T>& tokens) const {
    const detail::RecordScope scope(tokens);
    const NameScope named("Llama");
    check_tokens(tokens);
    Tape<T> tape = tokens.tape();
    return express_embedded(
        embed_tokens_.express(tokens),
        causal_positions(tape, layers_.front().attention().rotary(), tokens.shape()[1]));
}

template <Element T>
Value<T> Llama<T>::express_embedded(const Value<T>& embedded,
                                    const AttentionPositions<T>& positions) const {
    const detail::RecordScope scope(embedded);
    const NameScope named("Llama");
    Value<T> h = embedded;
    for (const LlamaDecoderLayer<T>& layer : layers_) {
        h = layer.express(h, positions);
    }
    return logits(h);
}

template <Element T>
Value<T> Llama<T>::express(const Value<T>& tokens,
                           const CachedPositions<T>& positions,
                           const std::vector<KeyValueCache<T>>& caches,
                           std::vector<KeyValueCache<T>>& updated) const {
    const detail::RecordScope scope(tokens);
    const NameScope named("Llama");
    check_tokens(tokens);
    return express_embedded(embed_tokens_.express(tokens), positions, caches, updated);
}

template <Element T>
Value<T> Llama<T>::express_embedded(const Value<T>& embedded,
                                    const CachedPositions<T>& positions,
                                    const std::vector<KeyValueCache<T>>& caches,
                                    std::vector<KeyValueCache<T>>& updated,
                                    LogitsOf which) const {
    const detail::RecordScope scope(embedded);
    const NameScope named("Llama");
    if (caches.size() != layers_.size()) {
        throw ShapeError("a Llama of " + std::to_string(layers_.size()) +
                         " layers reads one key/value cache a layer; got " +
                         std::to_string(caches.size()));
    }
    updated = caches;
    Value<T> h = embedded;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        h = layers_[i].express(h, positions, caches[i], updated[i]);
    }
    const std::size_t tokens = h.shape()[1];
    return logits(which == LogitsOf::LastToken ? h.narrow(1, tokens - 1, 1) : h);
}

template <Element T>
std::vector<KeyValueCache<T>> Llama<T>::cache_inputs(Tape<T>& tape,
                                                     std::size_t batch,
                                                     std::size_t context) const {
    const Shape shape{batch, config_.key_value_heads, context, config_.head_width()};
    std::vector<KeyValueCache<T>> caches;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        caches.push_back({tape.input(Tensor<T>::filled(shape, T{0})),
                          tape.input(Tensor<T>::filled(shape, T{0}))});
    }
    return caches;
}

template <Element T>
CachedPositions<T> Llama<T>::position_inputs(Tape<T>& tape,
                                             std::size_t count,
                                             std::size_t context) const {
    CachedPositionTensors<T> at =
        cached_position_tensors<T>(layers_.front().attention().rotary(), 0, count, context);
    return {tape.input(std::move(at.cos)),
            tape.input(std::move(at.sin)),
            tape.input(std::move(at.allowed)),
            tape.input(std::move(at.placement)),
            tape.input(std::move(at.kept))};
}

template <Element T>
Tensor<T> Llama<T>::embed(const Tensor<T>& table,
                          const Shape& tokens_shape,
                          std::span<const std::int64_t> tokens) const {
    const std::size_t hidden = config_.hidden;
    if (table.shape() != Shape{config_.vocabulary, hidden} ||
        tokens.size() != tokens_shape.elements()) {
        throw ShapeError("Llama::embed reads a table [" + std::to_string(config_.vocabulary) +
                         ", " + std::to_string(hidden) + "] and " +
                         std::to_string(tokens_shape.elements()) + " token ids; got a table " +
                         table.shape().str() + " and " + std::to_string(tokens.size()) + " ids");
    }
    std::vector<std::size_t> extents(tokens_shape.extents().begin(), tokens_shape.extents().end());
    extents.push_back(hidden);
    return Tensor<T>::generate(Shape(std::span<const std::size_t>(extents)), [&](std::span<T> out) {
        detail::copy_embedding_rows(table.data(), config_.vocabulary, hidden, tokens, out);
    });
}

template <Element T>
std::vector<Value<T>> Llama<T>::parameters() const {
    std::vector<Value<T>> all = embed_tokens_.parameters();
    for (const LlamaDecoderLayer<T>& layer : layers_) {
        const std::vector<Value<T>> part = layer.parameters();
        all.insert(all.end(), part.begin(), part.end());
    }
    all.push_back(norm_.weight());
    if (lm_head_) {
        all.push_back(lm_head_->weight());
    }
    return all;
}

template <Element T>
std::vector<NamedParameter> Llama<T>::named_parameters() const {
    std::vector<Named> parts;
    parts.emplace_back("model.embed_tokens", embed_tokens_);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        parts.emplace_back("model.layers." + std::to_string(i), layers_[i]);
    }
    parts.emplace_back("model.norm", norm_);
    if (lm_head_) {
        parts.emplace_back("lm_head", *lm_head_);
    }
    return topos::named_parameters(parts);
}

template <Element T>
std::string Llama<T>::describe() const {
    std::ostringstream out;
    out << "Llama(vocabulary " << config_.vocabulary << ", hidden " << config_.hidden
        << ", intermediate " << config_.intermediate << ", " << config_.layers << " layers, "
        << config_.heads << " heads, " << config_.key_value_heads << " key/value heads, "
        << (config_.tied_embeddings ? "tied" : "untied")
        << " embeddings): " << config_.parameter_count() << " parameters\n"
        << "  " << detail::indented("embed_tokens " + embed_tokens_.describe()) << '\n'
        << "  "
        << detail::indented("layers.0 (of " + std::to_string(layers_.size()) + ") " +
                            layers_.front().describe())
        << '\n'
        << "  " << detail::indented("norm " + norm_.describe()) << '\n'
        << "  "
        << detail::indented("lm_head " + (lm_head_ ? lm_head_->describe()
                                                   : std::string("tied to embed_tokens")));
    return out.str();
}

template class LlamaDecoderLayer<float>;
template class LlamaDecoderLayer<double>;
template class LlamaDecoderLayer<bf16>;
template class Llama<float>;
template class Llama<double>;
template class Llama<bf16>;

}  // namespace topos
