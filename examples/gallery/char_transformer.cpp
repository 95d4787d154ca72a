// A character-level transformer that learns to spell English words. One tape
// records three exports of one spec, all reading the same Parameter nodes:
// the training graph over a batch of windows (its loss differentiated on the
// tape), the validation loss over held-out words, a full-context graph over
// one window, and a one-token decode step whose key/value caches are fed in
// and read out. New words are sampled through the decode step.
//
// With --check-decode it only checks, on an untrained model, that the decode
// step's logits agree with the full-context ones at every position.
#include "support/decode.hpp"
#include "support/report.hpp"
#include "support/words.hpp"
#include <topos/topos.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <string>
#include <string_view>

namespace {

using gallery::KeyValue;
using topos::Shape;
using topos::Symbol;
using topos::Tensor;
using topos::Value;

constexpr std::size_t context = 16;
constexpr std::size_t width = 32;
constexpr std::size_t heads = 4;
constexpr std::size_t depth = 1;
constexpr std::size_t batch = 32;
constexpr std::size_t validation_windows = 512;

struct Layers {
    topos::Embedding<float> tokens;
    topos::Embedding<float> positions;
    std::vector<topos::TransformerBlock<float>> blocks;
    topos::LayerNorm<float> norm;
    topos::Linear<float> unembed;

    explicit Layers(topos::Tape<float>& tape)
        : tokens(tape, gallery::vocabulary, width, topos::init::normal(1, 0.1)),
          positions(tape, context, width, topos::init::normal(2, 0.1)),
          norm(tape, width),
          unembed(tape, width, gallery::vocabulary, topos::init::xavier(3)) {
        for (std::size_t b = 0; b < depth; ++b) {
            blocks.emplace_back(tape, width, heads, 4 * width, topos::init::xavier(10 + b));
        }
    }

    std::vector<Value<float>> parameters() const {
        auto all = topos::parameters_of(tokens, positions, norm, unembed);
        for (const auto& block : blocks) {
            const auto more = block.parameters();
            all.insert(all.end(), more.begin(), more.end());
        }
        return all;
    }

    // Logits [windows * context, vocabulary] of token windows [windows, context].
    Value<float> full_context(topos::Tape<float>& tape, const Value<float>& windows) const {
        const auto places =
            tape.indices(Tensor<float>::generate(Shape{context}, [](std::span<float> out) {
                for (std::size_t i = 0; i < out.size(); ++i) {
                    out[i] = static_cast<float>(i);
                }
            }));
        auto x = tokens.express(windows) + positions.express(places);
        for (const auto& block : blocks) {
            x = block.express(x);
        }
        return unembed.express(norm.express(x))
            .reshape(Shape{windows.shape()[0] * context, gallery::vocabulary});
    }
};

struct Decode {
    Symbol token;                 // [1], an input of indices
    Symbol position;              // [1], likewise
    std::vector<Symbol> caches;   // keys then values of each block, inputs
    std::vector<Symbol> updated;  // the same, read out
    Symbol logits;                // [1, vocabulary]
};

Decode record_decode(topos::Tape<float>& tape, const Layers& layers) {
    const auto token = tape.indices(Tensor<float>::filled(Shape{1}, 0.0f));
    const auto position = tape.indices(Tensor<float>::filled(Shape{1}, 0.0f));
    const gallery::Position at = gallery::position_masks(tape, position, context);
    auto x = layers.tokens.express(token) + layers.positions.express(position);
    std::vector<Symbol> caches;
    std::vector<Symbol> updated_caches;
    for (const auto& block : layers.blocks) {
        const auto empty = Tensor<float>::filled(Shape{heads, context, width / heads}, 0.0f);
        const KeyValue cache{tape.input(empty), tape.input(empty)};
        KeyValue updated{cache.keys, cache.values};
        x = gallery::block_one(block, x, cache, at, updated);
        caches.insert(caches.end(), {cache.keys, cache.values});
        updated_caches.insert(updated_caches.end(), {updated.keys, updated.values});
    }
    const auto logits = layers.unembed.express(layers.norm.express(x));
    return {token, position, caches, updated_caches, logits};
}

struct Model {
    topos::Network<float> network;
    topos::Adjoints<float> adjoints;
    Symbol windows, targets;       // the training batch
    Symbol validation_loss;        // over the held-out windows (an input's default)
    Symbol window, window_logits;  // the full-context export over one window
    Decode decode;
};

Model record_model(const std::vector<float>& validation_stream) {
    topos::Tape<float> tape;
    const Layers layers(tape);
    const auto windows = tape.indices(Tensor<float>::filled(Shape{batch, context}, 0.0f));
    const auto targets = tape.indices(Tensor<float>::filled(Shape{batch * context}, 0.0f));
    const auto loss = topos::cross_entropy(layers.full_context(tape, windows), targets);
    const auto adjoints = tape.differentiate(loss, layers.parameters());

    const auto held_out = gallery::windows_at(
        validation_stream,
        gallery::even_starts(validation_windows, validation_stream.size(), context),
        context);
    const auto validation_inputs =
        tape.indices(Tensor<float>(Shape{validation_windows, context}, held_out.inputs));
    const auto validation_targets =
        tape.indices(Tensor<float>(Shape{validation_windows * context}, held_out.targets));
    const auto validation_loss =
        topos::cross_entropy(layers.full_context(tape, validation_inputs), validation_targets);

    const auto window = tape.indices(Tensor<float>::filled(Shape{1, context}, 0.0f));
    const auto window_logits = layers.full_context(tape, window);
    Decode decode = record_decode(tape, layers);
    return {std::move(tape).into_network(),
            adjoints,
            windows,
            targets,
            validation_loss,
            window,
            window_logits,
            decode};
}

topos::Plan<float> lower(const Model& model, std::vector<Symbol> roots) {
    return model.network.entry(roots).numerics(topos::Numerics::Exact).lower();
}

topos::Parameters<float> train(const Model& model,
                               const std::vector<float>& stream,
                               std::size_t steps,
                               gallery::TrainingReport& report) {
    const auto plan = lower(model, model.adjoints.roots());
    const topos::optim::AdamW adamw({.learning_rate = 3e-3, .weight_decay = 0.01});
    const topos::optim::WarmupCosine schedule(3e-3, 100, steps, 3e-4);
    auto parameters = model.network.parameters();
    auto state = adamw.start(parameters);
    topos::data::Generator generator(11);
    topos::data::Progress progress(steps, {.every = 250});
    for (std::size_t step = 0; step < steps; ++step) {
        const auto cut = gallery::windows_at(
            stream, gallery::random_starts(batch, stream.size(), context, generator), context);
        const auto run =
            plan.forward(parameters,
                         {{model.windows, Tensor<float>(Shape{batch, context}, cut.inputs)},
                          {model.targets, Tensor<float>(Shape{batch * context}, cut.targets)}});
        const auto [clipped, norm] =
            topos::optim::clip_by_global_norm(run.recorded_gradients(model.adjoints), 1.0);
        auto [next, next_state] = adamw.step(parameters, clipped, state, schedule(state.steps));
        parameters = next;
        state = next_state;
        progress.update(step, run.of(model.adjoints.target()).scalar(), batch);
    }
    progress.finish();
    report.losses("cross-entropy", progress.losses());
    return parameters;
}

topos::Plan<float> decode_plan(const Model& model) {
    std::vector<Symbol> roots{model.decode.logits};
    roots.insert(roots.end(), model.decode.updated.begin(), model.decode.updated.end());
    return lower(model, roots);
}

// Feeds one token after another through the decode plan, carrying the
// key/value caches from each step's run into the next step's feeds.
class Decoder {
public:
    Decoder(const Model& model,
            const topos::Plan<float>& plan,
            const topos::Parameters<float>& parameters)
        : model_(model),
          plan_(plan),
          parameters_(parameters),
          caches_(model.decode.caches.size(),
                  Tensor<float>::filled(Shape{heads, context, width / heads}, 0.0f)) {}

    // The logits of the token after `token`, which sits at the next position.
    Tensor<float> step(float token) {
        std::vector<topos::Feed<float>> feeds{
            {model_.decode.token, Tensor<float>(Shape{1}, {token})},
            {model_.decode.position, Tensor<float>(Shape{1}, {static_cast<float>(position_++)})}};
        for (std::size_t c = 0; c < caches_.size(); ++c) {
            feeds.push_back({model_.decode.caches[c], caches_[c]});
        }
        const auto run = plan_.forward(parameters_, feeds);
        for (std::size_t c = 0; c < caches_.size(); ++c) {
            caches_[c] = run.of(model_.decode.updated[c]);
        }
        return run.of(model_.decode.logits);
    }

private:
    const Model& model_;
    const topos::Plan<float>& plan_;
    const topos::Parameters<float>& parameters_;
    std::vector<Tensor<float>> caches_;
    std::size_t position_ = 0;
};

// The largest |decode - full context| over the logits at every position of
// `tokens` (a full window), relative to the largest |logit|.
double decode_disagreement(const Model& model,
                           const topos::Parameters<float>& parameters,
                           const std::vector<float>& tokens) {
    const auto full =
        lower(model, {model.window_logits})
            .forward(parameters, {{model.window, Tensor<float>(Shape{1, context}, tokens)}})
            .of(model.window_logits);
    const auto plan = decode_plan(model);
    Decoder decoder(model, plan, parameters);
    double largest_gap = 0;
    double largest_logit = 0;
    for (std::size_t position = 0; position < context; ++position) {
        const auto logits = decoder.step(tokens[position]);
        for (std::size_t v = 0; v < gallery::vocabulary; ++v) {
            const double expected = full.data()[position * gallery::vocabulary + v];
            largest_gap =
                std::max(largest_gap, std::abs(static_cast<double>(logits.data()[v]) - expected));
            largest_logit = std::max(largest_logit, std::abs(expected));
        }
    }
    return largest_gap / largest_logit;
}

// A token drawn from softmax(logits).
std::size_t draw(const Tensor<float>& logits, topos::data::Generator& generator) {
    const float top = *std::max_element(logits.data().begin(), logits.data().end());
    std::vector<double> weights;
    double total = 0;
    for (const float logit : logits.data()) {
        weights.push_back(std::exp(static_cast<double>(logit - top)));
        total += weights.back();
    }
    double left = generator.unit() * total;
    std::size_t token = 0;
    while (token + 1 < weights.size() && left >= weights[token]) {
        left -= weights[token++];
    }
    return token;
}

// A word drawn letter by letter until the boundary (or the context is full).
std::string sample_word(const Model& model,
                        const topos::Plan<float>& plan,
                        const topos::Parameters<float>& parameters,
                        topos::data::Generator& generator) {
    Decoder decoder(model, plan, parameters);
    std::string word;
    float token = gallery::boundary;
    for (std::size_t position = 0; position < context; ++position) {
        const std::size_t next = draw(decoder.step(token), generator);
        if (next == 0) {
            break;
        }
        word += gallery::letter_of(next);
        token = static_cast<float>(next);
    }
    return word;
}

// A window of the stream starting at a word: ".word.word..." cut to the context.
std::vector<float> a_window(const std::vector<float>& stream) {
    return {stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(context)};
}

bool report_agreement(double disagreement) {
    const bool agree = disagreement < 1e-5;
    std::cout << "decode step against full context, every position of a window: "
              << (agree ? "agree within 1e-5 of the largest logit" : "DISAGREE") << '\n';
    return agree;
}

void sample_words(const Model& model,
                  const topos::Parameters<float>& parameters,
                  const gallery::Corpus& corpus) {
    const std::set<std::string> known(corpus.training_words.begin(), corpus.training_words.end());
    const auto plan = decode_plan(model);
    topos::data::Generator generator(5);
    std::cout << "\nsampled words (* = not among the training words):\n";
    for (int i = 0; i < 12; ++i) {
        const std::string word = sample_word(model, plan, parameters, generator);
        std::cout << "  " << word << (known.contains(word) ? "" : " *") << '\n';
    }
}

}  // namespace

int main(int argc, char** argv) {
    const gallery::Corpus corpus = gallery::read_corpus(3);
    const Model model = record_model(corpus.validation);
    if (argc > 1 && std::string_view(argv[1]) == "--check-decode") {
        return report_agreement(decode_disagreement(
                   model, model.network.parameters(), a_window(corpus.training)))
                   ? 0
                   : 1;
    }
    gallery::TrainingReport report("A character-level transformer", argc, argv);
    std::cout << model.network.parameters().size() << " parameter tensors, "
              << corpus.training.size() << " training tokens, " << corpus.validation.size()
              << " validation tokens\n\n";
    const auto parameters = train(model, corpus.training, 1500, report);
    const auto validation = lower(model, {model.validation_loss})
                                .forward(parameters, {})
                                .of(model.validation_loss)
                                .scalar();
    std::cout << "validation loss: " << validation << " nats per character (uniform guess: "
              << std::log(static_cast<double>(gallery::vocabulary)) << ")\n";
    const bool agree =
        report_agreement(decode_disagreement(model, parameters, a_window(corpus.validation)));
    sample_words(model, parameters, corpus);
    report.add("The decode step's plan", topos::show::card(decode_plan(model)));
    report.finish();
    return agree ? 0 : 1;
}
