// The digits MLP trained data-parallel over the ranks mpirun starts:
//   mpirun -np 4 build/examples/distributed_digits --checkpoint /tmp/digits.safetensors
// Every rank holds the same parameters; each step's global batch of 60 rows is
// shared out, the gradients are summed over the ranks in rank order, and every
// rank's Adam takes the same step, so all ranks end with the same bits (each
// prints a digest of its parameters). Rank 0 saves a checkpoint (parameters
// and Adam's state) every 25 steps; with --resume, rank 0 reads it and
// broadcasts it, so training goes on from it on any number of ranks.
// TOPOS_FAULT=<rank>:<step>:kill (or :throw) makes that rank die (or throw)
// before that step, to show that the others stop instead of waiting.
#include <topos/distributed.hpp>
#include <topos/topos.hpp>

#include <bit>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

using namespace topos;

namespace {

constexpr std::size_t global_batch = 60;
constexpr std::size_t epochs = 16;
constexpr std::size_t checkpoint_every = 25;

struct Options {
    std::filesystem::path checkpoint;
    bool resume = false;
};

Options options_of(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--checkpoint" && i + 1 < argc) {
            options.checkpoint = argv[++i];
        } else if (argument == "--resume") {
            options.resume = true;
        } else {
            throw Error("usage: distributed_digits [--checkpoint PATH [--resume]]; got " +
                        argument);
        }
    }
    return options;
}

// FNV-1a over every parameter's bits: equal digests, equal parameters.
std::uint64_t digest_of(const Parameters<float>& parameters) {
    std::uint64_t digest = 14695981039346656037ull;
    for (const Tensor<float>& value : parameters.values()) {
        for (const float element : value.data()) {
            digest = (digest ^ std::bit_cast<std::uint32_t>(element)) * 1099511628211ull;
        }
    }
    return digest;
}

// TOPOS_FAULT=<rank>:<step>:kill (or :throw): this rank dies by SIGKILL (or
// throws an exception nobody catches) before that step.
void maybe_fail(int rank, std::uint64_t step) {
    const char* fault = std::getenv("TOPOS_FAULT");
    if (fault == nullptr) {
        return;
    }
    const std::string here = std::to_string(rank) + ':' + std::to_string(step) + ':';
    if (here + "kill" == fault) {
        std::fprintf(stderr, "rank %d: killed before step %s (TOPOS_FAULT)\n", rank, fault);
        std::raise(SIGKILL);
    }
    if (here + "throw" == fault) {
        throw Error("rank " + std::to_string(rank) + " threw before step " + std::to_string(step) +
                    " (TOPOS_FAULT)");
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = options_of(argc, argv);
    const distributed::Communicator world;
    const Tensor<float> table = data::read_csv<float>(TOPOS_DATA "/digits.csv");
    const Tensor<float> pixels = table.narrow(1, 0, 64) / Tensor<float>(16);
    const Tensor<float> labels = table.select(1, 64);

    Tape<float> tape;
    const Mlp<float> mlp(tape, {64, 128, 10}, Activation::Relu, init::xavier(3));
    const Network<float> model = std::move(tape).into_network();
    const distributed::DataParallel<float> step_of(
        world,
        Function<float>(model,
                        [&](const Value<float>& x, const Value<float>& y) {
                            return cross_entropy(mlp.express(x), y);
                        },
                        {Argument::Real, Argument::Indices}));
    const optim::Adam adam({.learning_rate = 0.005});
    Parameters<float> parameters = model.parameters();
    optim::AdamState<float> state = adam.start(parameters);
    if (world.rank() == 0 && options.resume && std::filesystem::exists(options.checkpoint)) {
        parameters = checkpoint::load(options.checkpoint, model);
        state = checkpoint::load_adam_state(options.checkpoint, model);
        std::printf("resumed at step %llu\n", static_cast<unsigned long long>(state.steps));
    }
    parameters = world.broadcast(parameters);
    state = world.broadcast(state);

    const std::size_t per_epoch = 1500 / global_batch;
    data::Progress progress(epochs * per_epoch, {.every = 100, .in_place = false});
    for (std::uint64_t step = state.steps; step < epochs * per_epoch; ++step) {
        maybe_fail(world.rank(), step);
        const auto order = data::shuffled(1500, init::counter_bits(11, step / per_epoch));
        const std::vector<std::size_t> rows(
            order.begin() + static_cast<std::ptrdiff_t>(step % per_epoch * global_batch),
            order.begin() + static_cast<std::ptrdiff_t>((step % per_epoch + 1) * global_batch));
        const auto [value, gradients] = step_of.value_and_gradients(
            parameters, data::rows(pixels, rows), data::rows(labels, rows));
        adam.step(parameters, gradients, state).into(parameters, state);
        if (world.rank() == 0) {
            progress.update(step, value.item(), global_batch);
        }
        if (!options.checkpoint.empty() && state.steps % checkpoint_every == 0) {
            if (world.rank() == 0) {
                checkpoint::save(options.checkpoint, parameters, state);
            }
            world.barrier();
        }
    }
    const Function<float> predict(model, [&](const Value<float>& x) { return mlp.express(x); });
    const Tensor<float> guesses = predict(parameters, pixels.narrow(0, 1500, 297)).argmax(1);
    const auto correct = static_cast<long long>(guesses.equal(labels.narrow(0, 1500, 297)).sum());
    std::printf("rank %d of %d: digest %016llx, test accuracy %lld/297, %llu bytes sent per step\n",
                world.rank(),
                world.size(),
                static_cast<unsigned long long>(digest_of(parameters)),
                correct,
                static_cast<unsigned long long>(step_of.bytes_per_step()));
}
