// The training step of examples/digits_mlp_steps.cpp (a batch of 50 gathered,
// value_and_gradients, an AdamW step), timed over whole epochs: the C++ side
// of bench/python_overhead.py, which times the same step driven from Python
// (bench/digits_step_bench.py).
//
// usage: digits_step_bench DIGITS_CSV EPOCHS WIDTH...: an Mlp of these widths
// (64 first, 10 last; ReLU between), trained for EPOCHS timed epochs after one
// untimed; prints "microseconds per step: X" (wall clock) and "CPU
// microseconds per step: Y" (the process's CPU time, every thread's).
#include <topos/topos.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

using namespace topos;

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: digits_step_bench DIGITS_CSV EPOCHS WIDTH...\n");
        return 2;
    }
    const std::size_t epochs = std::strtoul(argv[2], nullptr, 10);
    std::vector<std::size_t> widths;
    for (int i = 3; i < argc; ++i) {
        widths.push_back(std::strtoul(argv[i], nullptr, 10));
    }
    const Tensor<float> table = data::read_csv<float>(argv[1]);
    const Tensor<float> pixels = table.narrow(1, 0, 64) / Tensor<float>(16);
    const Tensor<float> labels = table.select(1, 64);

    Tape<float> tape;
    const Mlp<float> mlp(tape, widths, Activation::Relu, init::xavier(1));
    const Network<float> model = std::move(tape).into_network();
    const Function<float> loss(model,
                               [&](const Value<float>& x, const Value<float>& y) {
                                   return cross_entropy(mlp.express(x), y);
                               },
                               {Argument::Real, Argument::Indices});
    const optim::AdamW adamw({.learning_rate = 0.003});
    Parameters<float> parameters = model.parameters();
    optim::AdamState<float> state = adamw.start(parameters);

    const auto epoch = [&](std::size_t seed) {
        const std::vector<std::size_t> order = data::shuffled(1500, seed);
        for (const data::BatchRange& range : data::batches(1500, 50)) {
            std::vector<float> x;
            std::vector<float> y;
            for (std::size_t i = range.start; i < range.start + range.count; ++i) {
                const auto row = pixels.data().subspan(order[i] * 64, 64);
                x.insert(x.end(), row.begin(), row.end());
                y.push_back(labels(order[i]));
            }
            const auto [value, gradients] = loss.value_and_gradients(
                parameters, Tensor<float>({range.count, 64}, x), Tensor<float>({range.count}, y));
            adamw.step(parameters, gradients, state).into(parameters, state);
        }
    };
    epoch(0);  // compiles the plan
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    for (std::size_t e = 1; e <= epochs; ++e) {
        epoch(e);
    }
    const std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    const double cpu = 1e6 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    const auto steps = static_cast<double>(epochs * 30);
    std::printf("microseconds per step: %.2f\n", elapsed.count() / steps);
    std::printf("CPU microseconds per step: %.2f\n", cpu / steps);
}
