// LlamaGenerator<T>: text generation from a Llama through key/value caches.
// It records on the model's tape a one-token step and prefill runs of a few
// sizes (the largest `prefill_chunk` tokens, then a quarter of that, and so
// on), all over the same caches of `context` positions, and lowers each into
// a plan once. A prompt goes in as the fewest runs of those sizes; each
// generated token is one run of the step plan. The caches are values of the
// runs: two runs take turns, each reading the other's caches and writing its
// own buffers, and each run's embeddings and positions are written into the
// same feed tensors, so after the first two runs no buffer is allocated and
// nothing is recompiled.
//
//   topos::Tape<float> tape;
//   const topos::Llama<float> llama = folder.load(tape);
//   topos::LlamaGenerator<float> generator(std::move(tape), llama, {.context = 256});
//   topos::TokenSampler sampler({.temperature = 0.8, .top_p = 0.95, .seed = 1});
//   generator.generate(prompt, {.count = 40, .eos = 2}, sampler, print_token);
//
// Under Numerics::Exact, the logits of every position are the bits of
// Llama::express over the whole sequence, however the prompt is cut into runs.
#pragma once

#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/grouped_query_attention.hpp>
#include <topos/model/llama.hpp>
#include <topos/model/sampling.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos {

// The sizes and numerics of a LlamaGenerator's plans.
struct GeneratorOptions {
    std::size_t context = 256;            // positions the caches hold (prompt and generated tokens)
    std::size_t prefill_chunk = 64;       // tokens the largest prefill run reads
    Numerics numerics = Numerics::Exact;  // of every plan
};

// When LlamaGenerator::generate stops: after `count` tokens, or after the
// end-of-sequence token `eos` when one is given and picked sooner.
struct Stopping {
    std::size_t count = 0;
    std::optional<std::int64_t> eos = std::nullopt;
};

template <Element T>
class LlamaGenerator {
public:
    // Records the runs on `tape`, which holds `model`, seals it and lowers the
    // plans. Throws ShapeError for a context of 0 or past the model's
    // max_positions, and for a prefill_chunk of 0.
    LlamaGenerator(Tape<T> tape, const Llama<T>& model, const GeneratorOptions& options = {});

    // The weights every run reads: by default the payloads recorded on the
    // tape (what LlamaFolder::load read). Throws SymbolError for parameters of
    // another network (those of a network the tape was reopened from fit).
    void set_parameters(Parameters<T> parameters);

    // The weights the runs read.
    const Parameters<T>& parameters() const { return parameters_; }

    // Feeds `tokens` at the next positions of the caches and returns the
    // logits after the last one, [vocabulary], valid until the next feed or
    // reset. Throws ShapeError for no tokens or for tokens past the context,
    // IndexError for an id outside the vocabulary; the caches are unchanged then.
    std::span<const T> feed(std::span<const std::int64_t> tokens);

    // Empties the caches: the next feed starts at position 0.
    void reset();

    // The positions the caches hold.
    std::size_t position() const { return position_; }

    // Resets, feeds `prompt`, then picks up to stop.count tokens with
    // `sampler`, feeding each back, and hands each to `on_token` as it is
    // picked. Returns the picked tokens (the eos that stopped it included).
    // Throws ShapeError for an empty prompt and when the prompt and the tokens
    // to pick would pass the context.
    std::vector<std::int64_t> generate(std::span<const std::int64_t> prompt,
                                       const Stopping& stop,
                                       TokenSampler& sampler,
                                       const std::function<void(std::int64_t)>& on_token = {});

    // The sealed network the plans were lowered from.
    const Network<T>& network() const { return network_; }

    // The token counts of the runs, largest first; the last is 1, the step.
    std::vector<std::size_t> run_sizes() const;

    // The plan that feeds `tokens` tokens at once (one of run_sizes()).
    // Throws ShapeError for another count.
    const Plan<T>& plan(std::size_t tokens) const;

    // The options it was made with.
    const GeneratorOptions& options() const { return options_; }

private:
    // One recorded run size: its inputs, its results and its plan.
    struct Stage {
        std::size_t tokens = 0;
        Value<T> embedded;  // input [1, tokens, hidden]
        CachedPositions<T> positions;
        Value<T> logits;              // [1, 1, vocabulary]: the last token's
        std::vector<Symbol> written;  // each layer's keys then values, updated
        std::optional<Plan<T>> plan;
        // What each run feeds, rewritten in place from run to run.
        Tensor<T> embedded_feed;
        CachedPositionTensors<T> position_feed;
    };

    static std::vector<Stage> record(Tape<T>& tape,
                                     const Llama<T>& model,
                                     const GeneratorOptions& options,
                                     const std::vector<KeyValueCache<T>>& caches);
    Stage& stage_for(std::size_t remaining);
    void check_feed(std::span<const std::int64_t> tokens) const;
    void rewrite_feeds(Stage& stage, std::span<const std::int64_t> tokens);
    void run(Stage& stage, std::span<const std::int64_t> tokens);

    GeneratorOptions options_;
    Llama<T> model_;
    std::vector<KeyValueCache<T>> caches_;  // inputs, shared by every stage
    std::vector<Stage> stages_;             // largest first
    RotaryTables<T> context_tables_;        // cos and sin of every cache position
    Network<T> network_;
    Parameters<T> parameters_;
    std::optional<Run<T>> runs_[2];  // taking turns: the newest holds the caches
    const Stage* newest_stage_ = nullptr;
    std::size_t newest_ = 0;
    std::size_t position_ = 0;
    std::vector<Feed<T>> feeds_;
};

extern template class LlamaGenerator<float>;
extern template class LlamaGenerator<double>;
extern template class LlamaGenerator<bf16>;

}  // namespace topos
