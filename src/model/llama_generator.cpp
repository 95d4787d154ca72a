// LlamaGenerator: the stages (a one-token step and prefill runs of shrinking
// sizes) recorded over one set of cache inputs and lowered once; feeding
// tokens through the fewest runs, two runs taking turns so that each reads
// the caches the other wrote; and generate(), which feeds a prompt and then
// every picked token back.
#include "core/tensor_access.hpp"
#include "model/embedding_rows.hpp"
#include <topos/core/error.hpp>
#include <topos/model/llama_generator.hpp>

#include <algorithm>
#include <string>

namespace topos {
namespace {

const GeneratorOptions& checked(const GeneratorOptions& options, const LlamaConfig& config) {
    if (options.context == 0 || options.context > config.max_positions) {
        throw ShapeError("a LlamaGenerator's context holds 1 to max_position_embeddings (" +
                         std::to_string(config.max_positions) + ") positions; got " +
                         std::to_string(options.context));
    }
    if (options.prefill_chunk == 0) {
        throw ShapeError("a LlamaGenerator's prefill_chunk is at least 1 token");
    }
    return options;
}

// prefill_chunk, a quarter of it, and so on, above 1; then 1.
std::vector<std::size_t> stage_sizes(const GeneratorOptions& options) {
    std::vector<std::size_t> sizes;
    for (std::size_t size = std::min(options.prefill_chunk, options.context); size > 1; size /= 4) {
        sizes.push_back(size);
    }
    sizes.push_back(1);
    return sizes;
}

}  // namespace

template <Element T>
LlamaGenerator<T>::LlamaGenerator(Tape<T> tape,
                                  const Llama<T>& model,
                                  const GeneratorOptions& options)
    : options_(checked(options, model.config())),
      model_(model),
      caches_(model.cache_inputs(tape, 1, options.context)),
      stages_(record(tape, model, options_, caches_)),
      context_tables_(
          model.layers().front().attention().rotary().template tables<T>(0, options.context)),
      network_(std::move(tape).into_network()),
      parameters_(network_.parameters()) {
    for (Stage& stage : stages_) {
        std::vector<Symbol> roots{stage.logits};
        roots.insert(roots.end(), stage.written.begin(), stage.written.end());
        stage.plan = network_.entry(roots).numerics(options_.numerics).lower();
    }
}

template <Element T>
std::vector<typename LlamaGenerator<T>::Stage> LlamaGenerator<T>::record(
    Tape<T>& tape,
    const Llama<T>& model,
    const GeneratorOptions& options,
    const std::vector<KeyValueCache<T>>& caches) {
    std::vector<Stage> stages;
    for (const std::size_t tokens : stage_sizes(options)) {
        const Value<T> embedded =
            tape.input(Tensor<T>::filled(Shape{1, tokens, model.config().hidden}, T{0}));
        const CachedPositions<T> positions = model.position_inputs(tape, tokens, options.context);
        std::vector<KeyValueCache<T>> updated;
        const Value<T> logits =
            model.express_embedded(embedded, positions, caches, updated, LogitsOf::LastToken);
        std::vector<Symbol> written;
        for (const KeyValueCache<T>& cache : updated) {
            written.insert(written.end(), {cache.keys, cache.values});
        }
        CachedPositionTensors<T> position_feed = cached_position_tensors<T>(
            model.layers().front().attention().rotary(), 0, tokens, options.context);
        stages.push_back(Stage{tokens,
                               embedded,
                               positions,
                               logits,
                               std::move(written),
                               {},
                               Tensor<T>::filled(embedded.shape(), T{0}),
                               std::move(position_feed)});
    }
    return stages;
}

template <Element T>
void LlamaGenerator<T>::set_parameters(Parameters<T> parameters) {
    if (!parameters.same_slots(network_.parameters())) {
        throw SymbolError(
            "LlamaGenerator::set_parameters: these parameters belong to another network (take "
            "them from this generator's network, or from the one its tape was reopened from)");
    }
    parameters_ = std::move(parameters);
}

template <Element T>
std::vector<std::size_t> LlamaGenerator<T>::run_sizes() const {
    std::vector<std::size_t> sizes;
    for (const Stage& stage : stages_) {
        sizes.push_back(stage.tokens);
    }
    return sizes;
}

template <Element T>
const Plan<T>& LlamaGenerator<T>::plan(std::size_t tokens) const {
    for (const Stage& stage : stages_) {
        if (stage.tokens == tokens) {
            return *stage.plan;
        }
    }
    throw ShapeError("this LlamaGenerator has no run of " + std::to_string(tokens) + " tokens");
}

template <Element T>
typename LlamaGenerator<T>::Stage& LlamaGenerator<T>::stage_for(std::size_t remaining) {
    const auto fits = [&](const Stage& stage) { return stage.tokens <= remaining; };
    return *std::find_if(stages_.begin(), stages_.end(), fits);  // the last stage is 1 token
}

template <Element T>
void LlamaGenerator<T>::check_feed(std::span<const std::int64_t> tokens) const {
    if (tokens.empty()) {
        throw ShapeError("LlamaGenerator::feed takes at least one token");
    }
    if (position_ + tokens.size() > options_.context) {
        throw ShapeError("the caches hold " + std::to_string(options_.context) + " positions, " +
                         std::to_string(position_) + " of them used; " +
                         std::to_string(tokens.size()) +
                         " more tokens do not fit (make the generator with a longer context)");
    }
    const std::size_t vocabulary = model_.config().vocabulary;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i] < 0 || static_cast<std::size_t>(tokens[i]) >= vocabulary) {
            throw IndexError("token id " + std::to_string(tokens[i]) + " (at " + std::to_string(i) +
                             " of the tokens fed) is outside the vocabulary of " +
                             std::to_string(vocabulary));
        }
    }
}

template <Element T>
std::span<const T> LlamaGenerator<T>::feed(std::span<const std::int64_t> tokens) {
    check_feed(tokens);
    std::size_t done = 0;
    Stage* last = nullptr;
    while (done < tokens.size()) {
        last = &stage_for(tokens.size() - done);
        run(*last, tokens.subspan(done, last->tokens));
        done += last->tokens;
    }
    return runs_[newest_]->of(last->logits).data();
}

// Writes the tokens' embeddings and positions into the stage's own feed
// tensors; once the last run has let go of them, in place.
template <Element T>
void LlamaGenerator<T>::rewrite_feeds(Stage& stage, std::span<const std::int64_t> tokens) {
    const LlamaConfig& config = model_.config();
    detail::copy_embedding_rows(parameters_.of(model_.embed_tokens().table()).data(),
                                config.vocabulary,
                                config.hidden,
                                tokens,
                                detail::TensorAccess::writable(stage.embedded_feed));
    rewrite_cached_positions(
        stage.position_feed, context_tables_, position_, tokens.size(), options_.context);
}

template <Element T>
void LlamaGenerator<T>::run(Stage& stage, std::span<const std::int64_t> tokens) {
    rewrite_feeds(stage, tokens);
    const CachedPositionTensors<T>& place = stage.position_feed;
    feeds_.clear();
    feeds_.push_back({stage.embedded, stage.embedded_feed});
    feeds_.push_back({stage.positions.cos, place.cos});
    feeds_.push_back({stage.positions.sin, place.sin});
    feeds_.push_back({stage.positions.allowed, place.allowed});
    feeds_.push_back({stage.positions.placement, place.placement});
    feeds_.push_back({stage.positions.kept, place.kept});
    if (position_ > 0) {  // otherwise the caches' recorded zeros
        const Run<T>& previous = *runs_[newest_];
        for (std::size_t layer = 0; layer < caches_.size(); ++layer) {
            feeds_.push_back({caches_[layer].keys, previous.of(newest_stage_->written[2 * layer])});
            feeds_.push_back(
                {caches_[layer].values, previous.of(newest_stage_->written[2 * layer + 1])});
        }
    }
    const std::size_t target = position_ > 0 ? 1 - newest_ : newest_;
    if (runs_[target]) {
        stage.plan->forward_into(*runs_[target], parameters_, feeds_);
    } else {
        runs_[target] = stage.plan->forward(parameters_, feeds_);
    }
    feeds_.clear();  // lets go of the other run's caches, so its buffers are free again
    newest_ = target;
    newest_stage_ = &stage;
    position_ += tokens.size();
}

template <Element T>
void LlamaGenerator<T>::reset() {
    position_ = 0;
}

template <Element T>
std::vector<std::int64_t> LlamaGenerator<T>::generate(
    std::span<const std::int64_t> prompt,
    const Stopping& stop,
    TokenSampler& sampler,
    const std::function<void(std::int64_t)>& on_token) {
    if (prompt.empty()) {
        throw ShapeError("LlamaGenerator::generate starts from a prompt of at least one token");
    }
    if (stop.count > 0 && prompt.size() + stop.count - 1 > options_.context) {
        throw ShapeError("a prompt of " + std::to_string(prompt.size()) + " tokens and " +
                         std::to_string(stop.count) + " more pass the context of " +
                         std::to_string(options_.context) +
                         " positions (make the generator with a longer context)");
    }
    reset();
    std::vector<std::int64_t> picked;
    if (stop.count == 0) {
        return picked;
    }
    std::span<const T> logits = feed(prompt);
    while (true) {
        const std::int64_t token = sampler.pick(logits);
        picked.push_back(token);
        if (on_token) {
            on_token(token);
        }
        if (picked.size() == stop.count || (stop.eos && token == *stop.eos)) {
            return picked;
        }
        logits = feed(std::span<const std::int64_t>(&picked.back(), 1));
    }
}

template class LlamaGenerator<float>;
template class LlamaGenerator<double>;
template class LlamaGenerator<bf16>;

}  // namespace topos
