// A digits MLP (64 -> 128 -> 10, ReLU) trained for two epochs with AdamW on a
// warm-up cosine schedule, each step's loss printed with its bits, then the
// test accuracy and a hash of every trained parameter's bits. Its Python twin,
// examples/python/digits_mlp_steps.py, prints the same lines: the same bits
// from Python (python/tests/test_digits_mlp_twin.py checks it).
#include <topos/topos.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

using namespace topos;

namespace {

std::uint32_t bits_of(float value) {
    return std::bit_cast<std::uint32_t>(value);
}

// FNV-1a over the bytes of every parameter, slot after slot.
std::uint64_t fingerprint(const Parameters<float>& parameters) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const Tensor<float>& value : parameters.values()) {
        for (const float element : value.data()) {
            const std::uint32_t bits = bits_of(element);
            for (int byte = 0; byte < 4; ++byte) {
                hash = (hash ^ ((bits >> (8 * byte)) & 0xffU)) * 0x100000001b3ULL;
            }
        }
    }
    return hash;
}

}  // namespace

int main() {
    const Tensor<float> table = data::read_csv<float>(TOPOS_DATA "/digits.csv");
    const Tensor<float> pixels = table.narrow(1, 0, 64) / Tensor<float>(16);
    const Tensor<float> labels = table.select(1, 64);

    Tape<float> tape;
    const Linear<float> hidden(tape, 64, 128, init::uniform(1, -0.125, 0.125));
    const Linear<float> classify(
        tape, 128, 10, init::uniform(2, -1 / std::sqrt(128.0), 1 / std::sqrt(128.0)));
    const Network<float> model = std::move(tape).into_network();
    const auto logits = [&](const Value<float>& x) {
        return classify.express(hidden.express(x).relu());
    };
    const Function<float> loss(model,
                               [&](const Value<float>& x, const Value<float>& y) {
                                   return cross_entropy(logits(x), y, {.label_smoothing = 0.1});
                               },
                               {Argument::Real, Argument::Indices});
    const Function<float> predict(model, logits);

    const std::size_t epochs = 2;
    const std::size_t batch = 50;
    const std::size_t steps = epochs * 1500 / batch;
    const optim::AdamW adamw({.learning_rate = 0.003, .weight_decay = 0.01});
    const optim::WarmupCosine schedule(0.003, 10, steps);
    Parameters<float> parameters = model.parameters();
    optim::AdamState<float> state = adamw.start(parameters);
    std::printf("digits MLP 64 -> 128 -> 10 (ReLU), %zu steps of %zu\n", steps, batch);
    std::size_t step = 0;
    for (std::size_t epoch = 0; epoch < epochs; ++epoch) {
        const std::vector<std::size_t> order = data::shuffled(1500, 7 + epoch);
        for (const data::BatchRange& range : data::batches(1500, batch)) {
            std::vector<float> x;
            std::vector<float> y;
            for (std::size_t i = range.start; i < range.start + range.count; ++i) {
                const auto row = pixels.data().subspan(order[i] * 64, 64);
                x.insert(x.end(), row.begin(), row.end());
                y.push_back(labels(order[i]));
            }
            const auto [value, gradients] = loss.value_and_gradients(
                parameters, Tensor<float>({range.count, 64}, x), Tensor<float>({range.count}, y));
            adamw.step(parameters, gradients, state, schedule(step)).into(parameters, state);
            std::printf("step %2zu: loss %.6f (bits %08x)\n",
                        step,
                        static_cast<double>(value.item()),
                        bits_of(value.item()));
            ++step;
        }
    }
    const Tensor<float> test_logits = predict(parameters, pixels.narrow(0, 1500, 297));
    const Tensor<float> predicted = test_logits.argmax(1);
    std::size_t correct = 0;
    for (std::size_t row = 0; row < 297; ++row) {
        correct += predicted(row) == labels(1500 + row) ? 1 : 0;
    }
    std::printf("test accuracy: %zu of 297 (%.2f%%)\n",
                correct,
                100.0 * static_cast<double>(correct) / 297);
    std::printf("parameters: FNV-1a %016llx\n",
                static_cast<unsigned long long>(fingerprint(parameters)));
}
