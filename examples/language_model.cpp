// A language model of the Llama family: RmsNorm, rotary position embeddings,
// grouped-query attention and a SwiGLU MLP, built from a configuration,
// named as Hugging Face names a released checkpoint's tensors, trained to
// continue a sequence of tokens, saved as a released model folder and loaded
// back from it, and generating tokens through key/value-cache plans.
#include <topos/topos.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <vector>

namespace {

namespace init = topos::init;
namespace optim = topos::optim;

constexpr std::size_t positions = 12;

// The configuration a config.json holds, here a tiny one.
topos::LlamaConfig tiny_config() {
    return {.vocabulary = 16,
            .hidden = 32,
            .intermediate = 64,
            .layers = 2,
            .heads = 4,
            .key_value_heads = 2,
            .rope_theta = 10000.0,
            .rms_norm_eps = 1e-5,
            .max_positions = 64,
            .tied_embeddings = false};
}

struct Model {
    topos::Llama<float> llama;
    topos::Network<float> network;
    topos::Symbol logits;
    topos::Symbol loss;
};

Model record_model() {
    topos::Tape<float> tape;
    const topos::Llama<float> llama(tape, tiny_config(), init::normal(7, 0.02));
    auto tokens = tape.indices(topos::Shape{1, positions}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    auto next = tape.indices(topos::Shape{positions}, {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
    auto logits = llama.express(tokens).reshape(topos::Shape{positions, 16});
    auto loss = topos::cross_entropy(logits, next);

    std::cout << llama.describe() << "\n\n";
    const auto names = llama.named_parameters();
    std::cout << names.size() << " named parameters, as in a released checkpoint:\n";
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{2}, names.size() - 1}) {
        std::cout << "  " << names[i].name << '\n';
    }
    std::cout << '\n';
    return {llama, std::move(tape).into_network(), logits, loss};
}

// The most likely next token after each position.
void print_predictions(const topos::Tensor<float>& logits) {
    std::cout << "predicted next tokens:";
    const auto values = logits.data();
    for (std::size_t p = 0; p < positions; ++p) {
        const auto row = values.subspan(p * 16, 16);
        std::cout << ' ' << std::max_element(row.begin(), row.end()) - row.begin();
    }
    std::cout << '\n';
}

topos::Parameters<float> train(const Model& model) {
    const optim::AdamW adamw({.learning_rate = 0.01, .weight_decay = 0.0});
    auto parameters = model.network.parameters();
    auto state = adamw.start(parameters);
    for (std::uint64_t step = 0; step < 40; ++step) {
        auto run = model.network.forward(parameters);
        auto gradients = run.backward(model.loss).parameters(parameters);
        auto [next, next_state] = adamw.step(parameters, gradients, state);
        parameters = next;
        state = next_state;
        if (step % 10 == 0) {
            std::cout << "step " << step << ": loss " << run.of(model.loss) << '\n';
        }
    }
    const auto trained = model.network.forward(parameters);
    std::cout << "after 40 steps: loss " << trained.of(model.loss) << '\n';
    print_predictions(trained.of(model.logits));
    return parameters;
}

// The trained model written as Hugging Face publishes one, then read back
// into a fresh tape as a user of downloaded files would.
void save_and_load(const Model& model, const topos::Parameters<float>& trained) {
    topos::save_llama_folder("language_model_example", model.llama, trained);
    const topos::LlamaFolder folder("language_model_example");
    std::cout << "\nlanguage_model_example/: config.json and " << folder.tensors().size()
              << " tensors, among them\n";
    for (std::size_t i = 0; i < 3; ++i) {
        const auto& stored = folder.tensors()[i].stored;
        std::cout << "  " << stored.name << ' ' << stored.dtype << ' ' << stored.shape << '\n';
    }
    topos::Tape<float> tape;
    const topos::Llama<float> loaded = folder.load(tape);
    auto tokens = tape.indices(topos::Shape{1, positions}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    auto logits = loaded.express(tokens).reshape(topos::Shape{positions, 16});
    const auto network = std::move(tape).into_network();
    print_predictions(network.forward(network.parameters()).of(logits));
}

// Tokens generated from the folder: the prompt through a prefill plan, then
// one token a step through the step plan, each printed as it is picked.
void generate(const topos::LlamaFolder& folder) {
    topos::Tape<float> tape;
    const topos::Llama<float> llama = folder.load(tape);
    topos::LlamaGenerator<float> generator(std::move(tape), llama, {.context = 16});
    const std::vector<std::int64_t> prompt{1, 2, 3};
    const auto print = [](std::int64_t token) { std::cout << ' ' << token; };

    topos::TokenSampler greedy({.temperature = 0});
    std::cout << "\ngreedy after 1 2 3:";
    generator.generate(prompt, {.count = 9}, greedy, print);

    topos::TokenSampler sampler({.temperature = 3.0, .top_k = 3, .seed = 7});
    std::cout << "\nsampled (temperature 3, top-k 3, seed 7):";
    generator.generate(prompt, {.count = 9}, sampler, print);
    std::cout << '\n';
}

}  // namespace

int main() {
    const Model model = record_model();
    const auto trained = train(model);
    save_and_load(model, trained);
    generate(topos::LlamaFolder("language_model_example"));
}
