// A small CNN of the digits, trained, saved by name and loaded into the same
// architecture recorded anew: the loaded model gives the trained one's test
// logits bit for bit. Its LibTorch twin: docs/twins/cnn_checkpoint.cpp.
#include <topos/topos.hpp>

#include <filesystem>
#include <iostream>

using namespace topos;

struct Net {
    explicit Net(Tape<float>& tape)
        : conv(tape,
               {.in_channels = 1, .out_channels = 8, .kernel = 3, .padding = 1},
               init::xavier(1)),
          fc(tape, 8 * 4 * 4, 10, init::xavier(2)) {}

    Value<float> operator()(const Value<float>& x) const {
        return fc.express(flatten(pool.express(conv.express(x).relu()), 1));
    }

    std::vector<NamedParameter> named_parameters() const {
        return topos::named_parameters({{"conv", conv}, {"fc", fc}});
    }

    Conv2d<float> conv;
    MaxPool2d<float> pool{2};
    Linear<float> fc;
};

int main() {
    const Tensor<float> table = data::read_csv<float>(TOPOS_DATA "/digits.csv");
    const Tensor<float> images =
        (table.narrow(1, 0, 64) / Tensor<float>(16)).reshape({1797, 1, 8, 8});
    const Tensor<float> labels = table.select(1, 64);

    Tape<float> tape;
    const Net net(tape);
    const Network<float> model = std::move(tape).into_network();
    const Function<float> loss(
        model,
        [&](const Value<float>& x, const Value<float>& y) { return cross_entropy(net(x), y); },
        {Argument::Real, Argument::Indices});
    const data::Loader<float> loader(
        data::Dataset<float>({images.narrow(0, 0, 1500), labels.narrow(0, 0, 1500)}),
        {.batch_size = 50, .seed = 7});
    const optim::Adam adam({.learning_rate = 0.01});
    Parameters<float> parameters = model.parameters();
    optim::AdamState<float> state = adam.start(parameters);
    data::Progress progress(3 * loader.batches_per_epoch(), {.every = 30});
    for (std::size_t epoch = 0, step = 0; epoch < 3; ++epoch) {
        for (const data::Batch<float>& batch : loader.epoch(epoch)) {
            const auto [value, gradients] =
                loss.value_and_gradients(parameters, batch[0], batch[1]);
            adam.step(parameters, gradients, state).into(parameters, state);
            progress.update(step++, value.item(), batch.size());
        }
    }
    const auto path = std::filesystem::temp_directory_path() / "topos_cnn.safetensors";
    checkpoint::save(path, parameters, named_parameters(net));

    Tape<float> fresh_tape;
    const Net fresh(fresh_tape);
    const Network<float> fresh_model = std::move(fresh_tape).into_network();
    const Parameters<float> loaded = checkpoint::load(path, fresh_model, named_parameters(fresh));
    const Tensor<float> test = images.narrow(0, 1500, 297);
    const Tensor<float> logits = Function<float>(model, net)(parameters, test);
    const Tensor<float> again = Function<float>(fresh_model, fresh)(loaded, test);
    std::cout << "test accuracy: " << logits.argmax(1).equal(labels.narrow(0, 1500, 297)).mean()
              << "\nthe loaded model gives the same logits: "
              << (again.bit_equal(logits) ? "yes" : "no") << '\n';
}
