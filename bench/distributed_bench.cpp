// Data-parallel training steps under mpirun: steps per second and bytes each
// rank sends per step, for W2's MLP (784-512-512-10, tanh, 669,706 parameters)
// and the digits MLP (64-128-10, 9,610 parameters) at a global batch of 128,
// and, when asked for, W8 (a GPT-2-small transformer block: width 768, 12
// heads, MLP 3072, sequence 256; 7,087,872 parameters) at a global batch of 4.
// Each step: every rank runs the forward and backward plan on its shard while
// the loss and gradients are summed in buckets as the plan finishes them, then
// the same SGD step. With --micro-batches M the batch is cut into M
// micro-batches summed in their tree instead (the same bits on any number of
// ranks); --overlap off sums everything after the backward pass;
// --message-us and --gbits simulate a network between the ranks
// (DataParallelOptions::simulated_link). bench/distributed runs it on 1, 2
// and 4 ranks.
//
//   mpirun -np 2 build/bench/distributed_bench [--steps 40] [--batch 128] [--micro-batches M]
//       [--overlap on|off] [--bucket-kib 1024] [--message-us A] [--gbits W]
//       [--models w2,digits,g-mlp,g-cnn,g-chars,w8] [--gallery-batch 50] [--w8-batch 4]
//
// g-mlp, g-cnn and g-chars are the gallery's digits MLP, digits CNN and
// character transformer at their shapes (batches of 50; the transformer's
// rows are windows of 16 characters, 32 a batch in the gallery).
#include <topos/distributed.hpp>
#include <topos/topos.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace topos;

namespace {

std::size_t global_batch = 128;
distributed::DataParallelOptions options;
std::string models = "w2,digits";

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

std::string sending() {
    std::string words = options.micro_batches == 0
                            ? "by rank"
                            : "micro-batches " + std::to_string(options.micro_batches);
    words += options.overlap ? ", overlap" : ", no overlap";
    if (options.simulated_link) {
        char link[96];
        std::snprintf(link,
                      sizeof link,
                      ", link %.0f us + %.1f Gbit/s",
                      options.simulated_link->seconds_per_message * 1e6,
                      8e-9 / options.simulated_link->seconds_per_byte);
        words += link;
    }
    return words;
}

// Times `steps` steps of `parallel` over `inputs` after two warm-up steps
// (which record and lower the plan).
// How long this rank's pass runs on after the last parameter's gradient, the
// first a backward pass finishes, is final: the time a sum of the gradients
// can hide behind (the median of 5 passes over this rank's shard).
double backward_window_seconds(const Function<float>& loss,
                               const Parameters<float>& parameters,
                               std::span<const Tensor<float>> shard) {
    std::vector<double> windows;
    for (int pass = 0; pass < 5; ++pass) {
        std::chrono::steady_clock::time_point first_final;
        const std::size_t last_slot = parameters.size() - 1;
        (void)loss.value_and_gradients(
            parameters, shard, [&](std::span<const FinishedOutput<float>> finished) {
                for (const FinishedOutput<float>& output : finished) {
                    if (output.slot == last_slot) {
                        first_final = std::chrono::steady_clock::now();
                    }
                }
            });
        windows.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - first_final).count());
    }
    std::sort(windows.begin(), windows.end());
    return windows[windows.size() / 2];
}

void measure(const distributed::Communicator& world,
             const char* name,
             const Network<float>& network,
             const Function<float>& loss,
             std::span<const Tensor<float>> inputs,
             std::size_t steps) {
    const distributed::DataParallel<float> parallel(world, loss, options);
    const optim::Sgd sgd({.learning_rate = 0.01});
    Parameters<float> parameters = world.broadcast(network.parameters());
    optim::SgdState<float> state = sgd.start(parameters);
    const auto step = [&] {
        const auto [value, gradients] = parallel.value_and_gradients(parameters, inputs);
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
    const data::BatchRange mine = parallel.shard(inputs.front().shape()[0]);
    std::vector<Tensor<float>> shard;
    for (const Tensor<float>& input : inputs) {
        shard.push_back(input.narrow(0, mine.start, mine.count));
    }
    const double window = backward_window_seconds(loss, parameters, shard);
    std::size_t elements = 0;
    for (const Tensor<float>& value : parameters.values()) {
        elements += value.elements();
    }
    std::string buckets;
    for (const std::size_t bytes : parallel.bucket_sizes()) {
        buckets += (buckets.empty() ? "" : ",") + std::to_string(bytes);
    }
    if (world.rank() == 0) {
        std::printf(
            "%-11s ranks %d  %s  %8.2f steps/s  %8.2f ms/step  %6.2f ms all-reduce  "
            "%9llu bytes sent per rank per step  %zu parameters  %.2f ms backward window  "
            "buckets %s\n",
            name,
            world.size(),
            sending().c_str(),
            static_cast<double>(steps) / seconds,
            1e3 * seconds / static_cast<double>(steps),
            1e3 * reduce_seconds,
            static_cast<unsigned long long>(parallel.bytes_per_step()),
            elements,
            1e3 * window,
            buckets.c_str());
    }
}

void measure_mlp(const distributed::Communicator& world, const Model& model, std::size_t steps) {
    Tape<float> tape;
    const Mlp<float> mlp(tape, model.widths, Activation::Tanh, init::xavier(1));
    const Network<float> network = std::move(tape).into_network();
    const Function<float> loss(network,
                               [&](const Value<float>& x, const Value<float>& y) {
                                   return cross_entropy(mlp.express(x), y);
                               },
                               {Argument::Real, Argument::Indices});
    const std::size_t inputs = *model.widths.begin();
    const std::size_t classes = *(model.widths.end() - 1);
    const std::array batch{init::uniform(2, 0.0, 1.0).make<float>(Shape{global_batch, inputs}),
                           labels_of(global_batch, classes)};
    measure(world, model.name, network, loss, batch, steps);
}

// The gallery's models (examples/gallery/) at their batches, their loss and
// shapes; SGD, where the gallery steps AdamW. BatchNorm takes each rank's
// shard's statistics.
void measure_gallery_mlp(const distributed::Communicator& world,
                         std::size_t batch,
                         std::size_t steps) {
    Tape<float> tape;
    const Linear<float> hidden1(tape, 64, 512, init::xavier(1));
    const BatchNorm<float> norm1(tape, 512);
    const Linear<float> hidden2(tape, 512, 256, init::xavier(2));
    const BatchNorm<float> norm2(tape, 256);
    const Linear<float> classify(tape, 256, 10, init::xavier(3));
    const Network<float> network = std::move(tape).into_network();
    const Function<float> loss(network,
                               [&](const Value<float>& x, const Value<float>& y) {
                                   const auto first = norm1.express(hidden1.express(x)).relu();
                                   const auto second = norm2.express(hidden2.express(first)).relu();
                                   return cross_entropy(
                                       classify.express(second), y, {.label_smoothing = 0.1});
                               },
                               {Argument::Real, Argument::Indices});
    const std::array inputs{init::uniform(4, 0.0, 1.0).make<float>(Shape{batch, 64}),
                            labels_of(batch, 10)};
    measure(world, "g-mlp", network, loss, inputs, steps);
}

void measure_gallery_cnn(const distributed::Communicator& world,
                         std::size_t batch,
                         std::size_t steps) {
    constexpr std::size_t channels1 = 32, channels2 = 64, features = channels2 * 2 * 2;
    Tape<float> tape;
    const Conv2d<float> conv1(
        tape,
        {.in_channels = 1, .out_channels = channels1, .kernel = 3, .padding = 1},
        init::kaiming(1));
    const BatchNorm<float> norm1(tape, channels1);
    const Conv2d<float> conv2(
        tape,
        {.in_channels = channels1, .out_channels = channels2, .kernel = 3, .padding = 1},
        init::kaiming(2));
    const BatchNorm<float> norm2(tape, channels2);
    const MaxPool2d<float> pool(2);
    const Linear<float> classify(tape, features, 10, init::xavier(3));
    const Network<float> network = std::move(tape).into_network();
    const Function<float> loss(
        network,
        [&](const Value<float>& images, const Value<float>& y) {
            const auto first = pool.express(norm1.express(conv1.express(images)).relu());
            const auto second = pool.express(norm2.express(conv2.express(first)).relu());
            const std::size_t rows = images.shape()[0];
            return cross_entropy(classify.express(second.reshape(Shape{rows, features})), y);
        },
        {Argument::Real, Argument::Indices});
    const std::array inputs{init::uniform(4, 0.0, 1.0).make<float>(Shape{batch, 1, 8, 8}),
                            labels_of(batch, 10)};
    measure(world, "g-cnn", network, loss, inputs, steps);
}

// The character transformer: windows of 16 characters, each row holding its
// window, its positions and its targets.
void measure_gallery_transformer(const distributed::Communicator& world,
                                 std::size_t batch,
                                 std::size_t steps) {
    constexpr std::size_t vocabulary = 27, context = 16, width = 32, heads = 4;
    Tape<float> tape;
    const Embedding<float> tokens(tape, vocabulary, width, init::normal(1, 0.1));
    const Embedding<float> positions(tape, context, width, init::normal(2, 0.1));
    const TransformerBlock<float> block(tape, width, heads, 4 * width, init::xavier(10));
    const LayerNorm<float> norm(tape, width);
    const Linear<float> unembed(tape, width, vocabulary, init::xavier(3));
    const Network<float> network = std::move(tape).into_network();
    const Function<float> loss(
        network,
        [&](const Value<float>& windows, const Value<float>& places, const Value<float>& next) {
            const std::size_t rows = windows.shape()[0];
            const auto x = block.express(tokens.express(windows) + positions.express(places));
            const auto logits =
                unembed.express(norm.express(x)).reshape(Shape{rows * context, vocabulary});
            return cross_entropy(logits, next.reshape(Shape{rows * context}));
        },
        {Argument::Indices, Argument::Indices, Argument::Indices});
    std::vector<float> places(batch * context);
    for (std::size_t i = 0; i < places.size(); ++i) {
        places[i] = static_cast<float>(i % context);
    }
    const std::array inputs{
        Tensor<float>(Shape{batch, context}, labels_of(batch * context, vocabulary).data()),
        Tensor<float>(Shape{batch, context}, places),
        Tensor<float>(Shape{batch, context}, labels_of(batch * context, 13).data())};
    measure(world, "g-chars", network, loss, inputs, steps);
}

// W8: a GPT-2-small block over [batch, 256, 768], the loss the mean square of its output.
void measure_w8(const distributed::Communicator& world, std::size_t batch, std::size_t steps) {
    constexpr std::size_t sequence = 256, width = 768, heads = 12;
    Tape<float> tape;
    const TransformerBlock<float> block(tape, width, heads, 4 * width, init::xavier(1));
    const Network<float> network = std::move(tape).into_network();
    const Function<float> loss(network, [&](const Value<float>& x) {
        const Value<float> y = block.express(x);
        return (y * y).mean();
    });
    const std::array inputs{init::normal(2, 1.0).make<float>(Shape{batch, sequence, width})};
    measure(world, "w8-block", network, loss, inputs, steps);
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t steps = 40;
    std::size_t w8_batch = 4;
    std::size_t gallery_batch = 50;
    double message_seconds = 0;
    double gigabits = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const char* value = argv[i + 1];
        if (flag == "--steps") {
            steps = std::strtoull(value, nullptr, 10);
        } else if (flag == "--batch") {
            global_batch = std::strtoull(value, nullptr, 10);
        } else if (flag == "--gallery-batch") {
            gallery_batch = std::strtoull(value, nullptr, 10);
        } else if (flag == "--w8-batch") {
            w8_batch = std::strtoull(value, nullptr, 10);
        } else if (flag == "--micro-batches") {
            options.micro_batches = std::strtoull(value, nullptr, 10);
        } else if (flag == "--overlap") {
            options.overlap = std::string(value) != "off";
        } else if (flag == "--bucket-kib") {
            options.bucket_bytes = std::strtoull(value, nullptr, 10) * 1024;
        } else if (flag == "--message-us") {
            message_seconds = std::strtod(value, nullptr) * 1e-6;
        } else if (flag == "--gbits") {
            gigabits = std::strtod(value, nullptr);
        } else if (flag == "--models") {
            models = value;
        } else {
            std::fprintf(stderr, "distributed_bench: unknown flag %s\n", flag.c_str());
            return 2;
        }
    }
    if (message_seconds > 0 || gigabits > 0) {
        options.simulated_link = distributed::SimulatedLink{
            .seconds_per_message = message_seconds,
            .seconds_per_byte = gigabits > 0 ? 8.0 / (gigabits * 1e9) : 0.0};
    }
    const distributed::Communicator world;
    if (world.rank() == 0) {
        std::printf("kernels: %s\n", std::string(name_of(isa())).c_str());
    }
    const auto wanted = [](const char* model) {
        return ("," + models + ",").find("," + std::string(model) + ",") != std::string::npos;
    };
    if (wanted("w2")) {
        measure_mlp(world, {"w2-mlp", {784, 512, 512, 10}}, steps);
    }
    if (wanted("digits")) {
        measure_mlp(world, {"digits-mlp", {64, 128, 10}}, steps * 10);
    }
    if (wanted("g-mlp")) {
        measure_gallery_mlp(world, gallery_batch, steps);
    }
    if (wanted("g-cnn")) {
        measure_gallery_cnn(world, gallery_batch, steps);
    }
    if (wanted("g-chars")) {
        measure_gallery_transformer(world, gallery_batch, steps);
    }
    if (wanted("w8")) {
        measure_w8(world, w8_batch, std::max<std::size_t>(steps / 8, 2));
    }
}
