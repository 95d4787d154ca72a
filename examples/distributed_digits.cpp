// The digits MLP trained data-parallel over the ranks mpirun starts:
//   mpirun -np 4 build/examples/distributed_digits --checkpoint /tmp/digits.safetensors
// Every rank holds the same parameters; each step's global batch of 60 rows is
// shared out, the gradients are summed over the ranks in rank order, and every
// rank's Adam takes the same step, so all ranks end with the same bits (each
// prints a digest of its parameters). With --micro-batches M the batch is cut
// into M micro-batches summed in a fixed tree instead, so any number of ranks
// gives the same bits, and --alone (with --micro-batches) trains in this one
// process without MPI, with those bits again. Rank 0 saves a checkpoint
// (parameters and Adam's state) every 25 steps; with --resume, rank 0 reads it
// and broadcasts it, so training goes on from it on any number of ranks.
// TOPOS_FAULT=<rank>:<step>:kill (or :throw) makes that rank die (or throw)
// before that step, to show that the others stop instead of waiting.
#include <topos/distributed.hpp>
#include <topos/topos.hpp>

#include <array>
#include <bit>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

using namespace topos;

namespace {

constexpr std::size_t global_batch = 60;
constexpr std::size_t epochs = 16;
constexpr std::size_t checkpoint_every = 25;

struct Options {
    std::filesystem::path checkpoint;
    bool resume = false;
    std::size_t micro_batches = 0;  // 0: shared by rank
    bool alone = false;             // one process, no MPI
};

Options options_of(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--checkpoint" && i + 1 < argc) {
            options.checkpoint = argv[++i];
        } else if (argument == "--resume") {
            options.resume = true;
        } else if (argument == "--micro-batches" && i + 1 < argc) {
            options.micro_batches = std::stoul(argv[++i]);
        } else if (argument == "--alone") {
            options.alone = true;
        } else {
            throw Error(
                "usage: distributed_digits [--checkpoint PATH [--resume]] [--micro-batches M "
                "[--alone]]; got " +
                argument);
        }
    }
    if (options.alone && options.micro_batches == 0) {
        throw Error("--alone trains in micro-batches: give --micro-batches M too");
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

using Step = std::function<ValueAndGradients<float>(
    const Parameters<float>&, const Tensor<float>&, const Tensor<float>&)>;

// What the program prints last, as every rank (or the lone process) sees it.
void report(const std::string& who,
            const Parameters<float>& parameters,
            long long correct,
            std::uint64_t bytes_sent) {
    std::printf("%s: digest %016llx, test accuracy %lld/297, %llu bytes sent per step\n",
                who.c_str(),
                static_cast<unsigned long long>(digest_of(parameters)),
                correct,
                static_cast<unsigned long long>(bytes_sent));
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = options_of(argc, argv);
    std::optional<distributed::Communicator> world;
    if (!options.alone) {
        world.emplace();
    }
    const int rank = world ? world->rank() : 0;
    const Tensor<float> table = data::read_csv<float>(TOPOS_DATA "/digits.csv");
    const Tensor<float> pixels = table.narrow(1, 0, 64) / Tensor<float>(16);
    const Tensor<float> labels = table.select(1, 64);

    Tape<float> tape;
    const Mlp<float> mlp(tape, {64, 128, 10}, Activation::Relu, init::xavier(3));
    const Network<float> model = std::move(tape).into_network();
    const Function<float> loss(model,
                               [&](const Value<float>& x, const Value<float>& y) {
                                   return cross_entropy(mlp.express(x), y);
                               },
                               {Argument::Real, Argument::Indices});
    std::optional<distributed::DataParallel<float>> shared;
    Step step_of;
    if (world) {
        shared.emplace(
            *world, loss, distributed::DataParallelOptions{.micro_batches = options.micro_batches});
        step_of = [&](const auto& parameters, const auto& x, const auto& y) {
            return shared->value_and_gradients(parameters, x, y);
        };
    } else {
        step_of = [&](const auto& parameters, const auto& x, const auto& y) {
            const std::array inputs{x, y};
            return data::value_and_gradients_in_micro_batches(
                loss, parameters, std::span<const Tensor<float>>(inputs), options.micro_batches);
        };
    }
    const optim::Adam adam({.learning_rate = 0.005});
    Parameters<float> parameters = model.parameters();
    optim::AdamState<float> state = adam.start(parameters);
    if (rank == 0 && options.resume && std::filesystem::exists(options.checkpoint)) {
        parameters = checkpoint::load(options.checkpoint, model);
        state = checkpoint::load_adam_state(options.checkpoint, model);
        std::printf("resumed at step %llu\n", static_cast<unsigned long long>(state.steps));
    }
    if (world) {
        parameters = world->broadcast(parameters);
        state = world->broadcast(state);
    }

    const std::size_t per_epoch = 1500 / global_batch;
    data::Progress progress(epochs * per_epoch, {.every = 100, .in_place = false});
    for (std::uint64_t step = state.steps; step < epochs * per_epoch; ++step) {
        maybe_fail(rank, step);
        const auto order = data::shuffled(1500, init::counter_bits(11, step / per_epoch));
        const std::vector<std::size_t> rows(
            order.begin() + static_cast<std::ptrdiff_t>(step % per_epoch * global_batch),
            order.begin() + static_cast<std::ptrdiff_t>((step % per_epoch + 1) * global_batch));
        const auto [value, gradients] =
            step_of(parameters, data::rows(pixels, rows), data::rows(labels, rows));
        adam.step(parameters, gradients, state).into(parameters, state);
        if (rank == 0) {
            progress.update(step, value.item(), global_batch);
        }
        if (!options.checkpoint.empty() && state.steps % checkpoint_every == 0) {
            if (rank == 0) {
                checkpoint::save(options.checkpoint, parameters, state);
            }
            if (world) {
                world->barrier();
            }
        }
    }
    const Function<float> predict(model, [&](const Value<float>& x) { return mlp.express(x); });
    const Tensor<float> guesses = predict(parameters, pixels.narrow(0, 1500, 297)).argmax(1);
    const auto correct = static_cast<long long>(guesses.equal(labels.narrow(0, 1500, 297)).sum());
    if (world) {
        report("rank " + std::to_string(world->rank()) + " of " + std::to_string(world->size()),
               parameters,
               correct,
               shared->bytes_per_step());
    } else {
        report("rank 0 of 1 without MPI", parameters, correct, 0);
    }
}
