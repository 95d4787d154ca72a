// Data-parallel training steps under mpirun: steps per second and bytes each
// rank sends per step, for W2's MLP (784-512-512-10, tanh, 669,706 parameters)
// and the digits MLP (64-128-10, 9,610 parameters) at a global batch of 128.
// Each step: every rank runs the forward and backward plan on its shard, then
// one all-reduce of the loss and every gradient (one flat buffer), then the
// same SGD step. With --micro-batches M the batch is cut into M micro-batches
// summed in their tree instead (the same bits on any number of ranks).
// bench/distributed runs it on 1, 2 and 4 ranks.
//
//   mpirun -np 2 build/bench/distributed_bench [--steps 40] [--batch 128] [--micro-batches M]
#include <topos/distributed.hpp>
#include <topos/topos.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace topos;

namespace {

std::size_t global_batch = 128;
std::size_t micro_batches = 0;  // 0: the batch shared by rank

struct Model {
    const char* name;
    std::initializer_list<std::size_t> widths;
};

Tensor<float> labels_of(std::size_t rows, std::size_t classes) {
    std::vector<float> labels(rows);
    for (std::size_t i = 0; i < rows; ++i) {
        labels[i] = static_cast<float>((i * 7) % classes);
    }
    return Tensor<float>(Shape{rows}, labels);
}

// The seconds one all-reduce of a step's buffer (the loss and every gradient) takes.
double all_reduce_seconds(const distributed::Communicator& world,
                          const Parameters<float>& parameters,
                          std::size_t repeats) {
    std::vector<float> buffer(1, 1.0F);
    for (const Tensor<float>& value : parameters.values()) {
        buffer.insert(buffer.end(), value.data().begin(), value.data().end());
    }
    world.barrier();
    const auto started = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < repeats; ++i) {
        (void)world.all_reduce(std::span<const float>(buffer));
    }
    world.barrier();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() /
           static_cast<double>(repeats);
}

// Times `steps` steps after two warm-up steps (which record and lower the plan).
void measure(const distributed::Communicator& world, const Model& model, std::size_t steps) {
    Tape<float> tape;
    const Mlp<float> mlp(tape, model.widths, Activation::Tanh, init::xavier(1));
    const Network<float> network = std::move(tape).into_network();
    const distributed::DataParallel<float> parallel(
        world,
        Function<float>(network,
                        [&](const Value<float>& x, const Value<float>& y) {
                            return cross_entropy(mlp.express(x), y);
                        },
                        {Argument::Real, Argument::Indices}),
        {.micro_batches = micro_batches});
    const std::size_t inputs = *model.widths.begin();
    const std::size_t classes = *(model.widths.end() - 1);
    const Tensor<float> x = init::uniform(2, 0.0, 1.0).make<float>(Shape{global_batch, inputs});
    const Tensor<float> y = labels_of(global_batch, classes);
    const optim::Sgd sgd({.learning_rate = 0.01});
    Parameters<float> parameters = world.broadcast(network.parameters());
    optim::SgdState<float> state = sgd.start(parameters);
    const auto step = [&] {
        const auto [value, gradients] = parallel.value_and_gradients(parameters, x, y);
        sgd.step(parameters, gradients, state).into(parameters, state);
    };
    step();
    step();
    world.barrier();
    const auto started = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < steps; ++i) {
        step();
    }
    world.barrier();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double reduce_seconds = all_reduce_seconds(world, parameters, steps);
    if (world.rank() == 0) {
        std::printf(
            "%-11s ranks %d  %s  %8.2f steps/s  %7.2f ms/step  %6.2f ms all-reduce  "
            "%9llu bytes sent per rank per step\n",
            model.name,
            world.size(),
            micro_batches == 0 ? "by rank"
                               : ("micro-batches " + std::to_string(micro_batches)).c_str(),
            static_cast<double>(steps) / seconds,
            1e3 * seconds / static_cast<double>(steps),
            1e3 * reduce_seconds,
            static_cast<unsigned long long>(parallel.bytes_per_step()));
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t steps = 40;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::string(argv[i]) == "--steps") {
            steps = std::strtoull(argv[i + 1], nullptr, 10);
        } else if (std::string(argv[i]) == "--batch") {
            global_batch = std::strtoull(argv[i + 1], nullptr, 10);
        } else if (std::string(argv[i]) == "--micro-batches") {
            micro_batches = std::strtoull(argv[i + 1], nullptr, 10);
        }
    }
    const distributed::Communicator world;
    if (world.rank() == 0) {
        std::printf("kernels: %s\n", std::string(name_of(isa())).c_str());
    }
    measure(world, {"w2-mlp", {784, 512, 512, 10}}, steps);
    measure(world, {"digits-mlp", {64, 128, 10}}, steps * 10);
}
