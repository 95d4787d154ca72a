// The model layer: modules recorded on a tape, a pure optimizer step with a
// schedule and clipping, dropout fed as a mask, and checkpoints. A tiny
// next-token model over a sequence of 6 tokens learns to continue 1 2 3 ...
#include <topos/topos.hpp>

#include <iostream>

namespace {

using topos::Tape;
using topos::Tensor;
namespace init = topos::init;
namespace optim = topos::optim;

// What the model is, and the symbols the training loop reads.
struct Model {
    topos::Network<float> network;
    topos::Symbol loss;
    topos::Dropout<float> dropout;  // modules stay readable after the seal
};

Model record_model() {
    Tape<float> tape;
    const topos::Embedding<float> embed(tape, 8, 8, init::normal(1, 0.5));
    const topos::TransformerBlock<float> block(tape, 8, 2, 16, init::xavier(2));
    const topos::LayerNorm<float> norm(tape, 8);
    const topos::Linear<float> unembed(tape, 8, 8, init::xavier(3));
    const topos::Dropout<float> dropout(tape, topos::Shape{1, 6, 8}, 0.1);

    auto tokens = tape.indices(topos::Shape{1, 6}, {1, 2, 3, 4, 5, 6});
    auto next = tape.indices(topos::Shape{6}, {2, 3, 4, 5, 6, 7});
    auto hidden = block.express(dropout.express(embed.express(tokens)));
    auto logits = unembed.express(norm.express(hidden)).reshape(topos::Shape{6, 8});
    auto loss = topos::cross_entropy(logits, next);

    std::cout << block.describe() << "\n\n";
    return {std::move(tape).into_network(), loss, dropout};
}

topos::Parameters<float> train(const Model& model) {
    const optim::AdamW adamw({.learning_rate = 0.01, .weight_decay = 0.01});
    const optim::WarmupCosine schedule(0.01, 5, 60);
    auto parameters = model.network.parameters();
    auto state = adamw.start(parameters);
    for (std::uint64_t step = 0; step < 60; ++step) {
        auto run = model.network.forward(parameters, {model.dropout.mask(step)});
        auto gradients = run.backward(model.loss).parameters(parameters);
        auto [clipped, norm] = optim::clip_by_global_norm(gradients, 1.0);
        auto [next, next_state] = adamw.step(parameters, clipped, state, schedule(state.steps));
        parameters = next;
        state = next_state;
        if (step % 20 == 0 || step == 59) {
            std::cout << "step " << step << ": loss " << run.of(model.loss) << '\n';
        }
    }
    topos::checkpoint::save("models_example.safetensors", parameters, state);
    return parameters;
}

void restore(const Model& model, const topos::Parameters<float>& trained) {
    auto loaded = topos::checkpoint::load("models_example.safetensors", model.network);
    auto state = topos::checkpoint::load_adam_state("models_example.safetensors", model.network);
    auto evaluation = model.network.forward(loaded);  // no mask fed: dropout is the identity
    std::cout << "restored after " << state.steps << " steps, evaluation loss "
              << evaluation.of(model.loss) << '\n';
    bool same = true;
    for (std::size_t slot = 0; slot < loaded.size(); ++slot) {
        same = same && loaded.values()[slot].bit_equal(trained.values()[slot]);
    }
    std::cout << "the same bits as trained: " << (same ? "yes" : "no") << "\n\n";
}

void a_mismatch() {
    Tape<float> tape;
    const topos::Embedding<float> embed(tape, 8, 4, init::normal(1, 0.5));
    (void)tape.parameter(Tensor<float>::filled(topos::Shape{3}, 0.0f));
    const auto other = std::move(tape).into_network();
    try {
        (void)topos::checkpoint::load("models_example.safetensors", other);
    } catch (const topos::CheckpointError& error) {
        std::cout << error.what() << '\n';
    }
}

}  // namespace

int main() {
    const Model model = record_model();
    const auto trained = train(model);
    restore(model, trained);
    a_mismatch();
}
