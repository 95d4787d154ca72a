// A small Llama (RMS norms, rotary positions, grouped-query attention, a
// SwiGLU MLP: 1.7 million parameters) trained on the UTF-8 bytes of
// data/tiny_stories.txt, then continuing a prompt through LlamaGenerator's
// key/value-cache plans. One tape records the model, its training loss
// (differentiated on the tape) and its validation loss; the generator
// records its prefill and step runs on the same tape reopened, so it reads
// the trained parameters as they are. docs/twins/tiny_stories_llama.cpp is the
// same model and training in LibTorch.
#include "support/data_path.hpp"
#include "support/report.hpp"
#include "support/words.hpp"
#include <topos/topos.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

using topos::Shape;
using topos::Symbol;
using topos::Tensor;

constexpr std::size_t context = 64;
constexpr std::size_t batch = 8;
constexpr std::size_t steps = 200;
constexpr std::size_t validation_windows = 64;

topos::LlamaConfig small_llama() {
    return {.vocabulary = 256,
            .hidden = 192,
            .intermediate = 512,
            .layers = 4,
            .heads = 6,
            .key_value_heads = 2,
            .rope_theta = 10000.0,
            .rms_norm_eps = 1e-5,
            .max_positions = 256,
            .tied_embeddings = false};
}

// The bytes of the stories, each a token; the first 90% train, the rest validate.
struct Corpus {
    std::vector<float> training;
    std::vector<float> validation;
};

Corpus read_corpus() {
    std::ifstream file(gallery::data_path("tiny_stories.txt"), std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(file), {}};
    if (text.empty()) {
        throw topos::Error("cannot read " + gallery::data_path("tiny_stories.txt"));
    }
    std::vector<float> tokens;
    for (const char byte : text) {
        tokens.push_back(static_cast<float>(static_cast<unsigned char>(byte)));
    }
    const auto cut = static_cast<std::ptrdiff_t>(tokens.size() * 9 / 10);
    return {{tokens.begin(), tokens.begin() + cut}, {tokens.begin() + cut, tokens.end()}};
}

struct Model {
    topos::Llama<float> llama;
    topos::Network<float> network;
    topos::Adjoints<float> adjoints;
    Symbol windows, targets;  // the training batch
    Symbol validation_loss;   // over the held-out windows (inputs' defaults)
};

// The mean cross-entropy of the next byte over `windows` [count, context].
topos::Value<float> next_byte_loss(const topos::Llama<float>& llama,
                                   const topos::Value<float>& windows,
                                   const topos::Value<float>& targets) {
    const std::size_t count = windows.shape()[0];
    return topos::cross_entropy(llama.express(windows).reshape(Shape{count * context, 256}),
                                targets);
}

Model record_model(const Corpus& corpus) {
    topos::Tape<float> tape;
    topos::Llama<float> llama(tape, small_llama(), topos::init::normal(1, 0.02));
    const auto windows = tape.indices(Tensor<float>::filled(Shape{batch, context}, 0.0F));
    const auto targets = tape.indices(Tensor<float>::filled(Shape{batch * context}, 0.0F));
    const auto adjoints =
        tape.differentiate(next_byte_loss(llama, windows, targets), llama.parameters());
    const auto held_out = gallery::windows_at(
        corpus.validation,
        gallery::even_starts(validation_windows, corpus.validation.size(), context),
        context);
    const auto validation_loss = next_byte_loss(
        llama,
        tape.indices(Tensor<float>(Shape{validation_windows, context}, held_out.inputs)),
        tape.indices(Tensor<float>(Shape{validation_windows * context}, held_out.targets)));
    auto network = std::move(tape).into_network();
    return {std::move(llama), std::move(network), adjoints, windows, targets, validation_loss};
}

topos::Parameters<float> train(const Model& model,
                               const std::vector<float>& stream,
                               gallery::TrainingReport& report) {
    const auto plan = model.network.entry(model.adjoints.roots()).lower();
    const topos::optim::AdamW adamw({.learning_rate = 3e-3, .weight_decay = 0.01});
    const topos::optim::WarmupCosine schedule(3e-3, 20, steps, 3e-4);
    auto parameters = model.network.parameters();
    auto state = adamw.start(parameters);
    topos::data::Generator generator(7);
    topos::data::Progress progress(steps, {.every = 25});
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t step = 0; step < steps; ++step) {
        const auto cut = gallery::windows_at(
            stream, gallery::random_starts(batch, stream.size() - 1, context, generator), context);
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
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    std::cout << "step time: " << elapsed.count() / steps << " ms\n";
    report.losses("cross-entropy", progress.losses());
    return parameters;
}

// The prompt's continuation, byte by byte, through the generator's plans.
std::string continuation(topos::LlamaGenerator<float>& generator, const std::string& prompt) {
    std::vector<std::int64_t> ids;
    for (const char byte : prompt) {
        ids.push_back(static_cast<unsigned char>(byte));
    }
    topos::TokenSampler sampler({.temperature = 0.8, .top_k = 20, .seed = 3});
    std::string text;
    generator.generate(ids, {.count = 120}, sampler, [&](std::int64_t id) {
        text += static_cast<char>(static_cast<unsigned char>(id));
    });
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    const Corpus corpus = read_corpus();
    const Model model = record_model(corpus);
    gallery::TrainingReport report("A small Llama on tiny stories", argc, argv);
    std::cout << small_llama().parameter_count() << " parameters, " << corpus.training.size()
              << " training bytes, " << corpus.validation.size() << " validation bytes\n\n";
    const auto parameters = train(model, corpus.training, report);
    const auto validation = model.network.entry({model.validation_loss})
                                .lower()
                                .forward(parameters)
                                .of(model.validation_loss)
                                .scalar();
    std::cout << "validation loss: " << validation
              << " nats per byte (uniform guess: " << std::log(256.0) << ")\n";

    topos::LlamaGenerator<float> generator(
        model.network.reopen(), model.llama, {.context = 192, .prefill_chunk = 32});
    generator.set_parameters(parameters);
    for (const char* prompt : {"Once upon a time", "The little dog"}) {
        std::cout << "\n" << prompt << "|" << continuation(generator, prompt) << '\n';
    }
    report.finish();
}
