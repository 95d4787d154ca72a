// Logistic regression of the digits with Adam: one Linear layer trained on
// shuffled batches of 50, then evaluated on all 297 test rows at once, the
// same parameters read by a Function at either batch size.
// Its LibTorch twin: docs/twins/logistic_regression.cpp.
#include <topos/topos.hpp>

#include <iostream>

using namespace topos;

int main() {
    const Tensor<float> table = data::read_csv<float>(TOPOS_DATA "/digits.csv");
    const Tensor<float> pixels = table.narrow(1, 0, 64) / Tensor<float>(16);
    const Tensor<float> labels = table.select(1, 64);

    Tape<float> tape;
    const Linear<float> linear(tape, 64, 10, init::xavier(1));
    const Network<float> model = std::move(tape).into_network();
    const Function<float> loss(model,
                               [&](const Value<float>& x, const Value<float>& y) {
                                   return cross_entropy(linear.express(x), y);
                               },
                               {Argument::Real, Argument::Indices});
    const Function<float> predict(model, [&](const Value<float>& x) { return linear.express(x); });

    const data::Loader<float> loader(
        data::Dataset<float>({pixels.narrow(0, 0, 1500), labels.narrow(0, 0, 1500)}),
        {.batch_size = 50, .seed = 7});
    const optim::Adam adam({.learning_rate = 0.01});
    Parameters<float> parameters = model.parameters();
    optim::AdamState<float> state = adam.start(parameters);
    data::Progress progress(10 * loader.batches_per_epoch(), {.every = 100});
    for (std::size_t epoch = 0, step = 0; epoch < 10; ++epoch) {
        for (const data::Batch<float>& batch : loader.epoch(epoch)) {
            const auto [value, gradients] =
                loss.value_and_gradients(parameters, batch[0], batch[1]);
            adam.step(parameters, gradients, state).into(parameters, state);
            progress.update(step++, value.item(), batch.size());
        }
    }
    const Tensor<float> guesses = predict(parameters, pixels.narrow(0, 1500, 297)).argmax(1);
    std::cout << "test accuracy: " << guesses.equal(labels.narrow(0, 1500, 297)).mean() << '\n';
}
