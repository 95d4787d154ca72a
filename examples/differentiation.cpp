// Differentiation, both roads: the engine's reverse scan over a run, and the
// derivative recorded into the tape, compiled like any other value. Then a
// training step as a plan, a Hessian-vector product, and index inputs.
#include <topos/topos.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>

namespace {

using topos::Symbol;
using topos::Tape;
using topos::Tensor;

void require(bool condition, const char* claim) {
    if (!condition) {
        std::cerr << "failed: " << claim << '\n';
        std::exit(1);
    }
}

void two_roads() {
    std::cout << "== Two roads to one gradient\n\n";
    Tape<double> tape;
    auto w = tape.parameter(Tensor<double>({2, 2}, {0.5, -0.25, 0.25, 0.4}));
    auto x = tape.input(Tensor<double>({1, 2}, {1.0, 2.0}));
    auto loss = x.matmul(w).tanh().square().sum();
    const auto adjoints = tape.differentiate(loss, {w});
    const Symbol weights = w;
    const Symbol target = loss;
    const auto network = std::move(tape).into_network();
    const auto parameters = network.parameters();

    const auto scanned = network.forward(parameters, {}).backward(target).of(weights);
    const auto plan = network.entry(adjoints.roots()).numerics(topos::Numerics::Exact).lower();
    const auto recorded = plan.forward(parameters, {}).of(adjoints.of(weights));
    require(scanned.bit_equal(recorded), "both roads give the same bits");
    std::cout << "reverse scan:        " << scanned << '\n'
              << "recorded, compiled:  " << recorded << '\n'
              << "bit-identical:       yes\n\n";
}

void a_compiled_training_step() {
    std::cout << "== A training step as a plan\n\n";
    Tape<float> tape;
    topos::Mlp mlp(tape, {4, 16, 3}, topos::Activation::Tanh, topos::init::xavier(7));
    auto features = tape.input(topos::init::normal(11, 1.0)(topos::Shape{8, 4}));
    auto labels = tape.indices({8}, {0, 1, 2, 0, 1, 2, 0, 1});
    auto loss = topos::cross_entropy(mlp.express(features), labels);
    const auto adjoints = tape.differentiate(loss, mlp.parameters());
    const auto network = std::move(tape).into_network();
    const auto step = network.entry(adjoints.roots()).lower();
    auto parameters = network.parameters();
    for (int iteration = 0; iteration < 60; ++iteration) {
        const auto run = step.forward(parameters, {});
        if (iteration % 20 == 0 || iteration == 59) {
            std::cout << "step " << iteration << ": cross-entropy " << run.of(adjoints.target())
                      << '\n';
        }
        parameters = parameters.step(run.recorded_gradients(adjoints),
                                     [](const auto& value, const auto& gradient) {
                                         return value - gradient * Tensor<float>(0.5f);
                                     });
    }
    std::cout << '\n';
}

void a_hessian_vector_product() {
    std::cout << "== Derivatives of derivatives\n\n";
    Tape<double> tape;
    auto w = tape.parameter(Tensor<double>({3}, {0.3, -0.6, 0.9}));
    auto v = tape.input(Tensor<double>({3}, {1.0, 0.5, -0.25}));
    // One operation per statement fixes the tape's order: C++ does not order the
    // evaluation of the two sides of `a + b` when both record.
    auto sine = w.sin();
    auto wave = (sine * w.exp()).sum();
    auto spread = w.square().sum().log();
    auto loss = wave + spread;
    const auto gradient = tape.differentiate(loss, {w});
    // H v = d (grad . v) / d w: differentiate the recorded gradient again.
    auto directional = (tape.value(gradient.of(w)) * v).sum();
    const auto hessian_vector = tape.differentiate(directional, {w});
    const Symbol weights = w;
    const Symbol grad = gradient.of(w);
    const auto network = std::move(tape).into_network();
    const auto parameters = network.parameters();
    const auto hv = network.forward(parameters, {}).of(hessian_vector.of(weights));

    // Central differences of the gradient along v.
    const double h = 1e-5;
    const auto shifted = [&](double sign) {
        const auto base = parameters.of(weights).data();
        return parameters.with(
            weights,
            Tensor<double>(
                {3},
                {base[0] + sign * h * 1.0, base[1] + sign * h * 0.5, base[2] - sign * h * 0.25}));
    };
    const auto plus = network.forward(shifted(1), {}).of(grad);
    const auto minus = network.forward(shifted(-1), {}).of(grad);
    double worst = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        const double difference = (plus.data()[i] - minus.data()[i]) / (2 * h);
        worst = std::max(worst, std::abs(difference - hv.data()[i]) / std::abs(difference));
    }
    require(worst < 1e-7, "H v agrees with central differences of the gradient");
    std::cout << "H v by differentiating twice: " << hv << '\n'
              << "agrees with central differences of the gradient: relative error < 1e-7\n\n";
}

void embeddings_and_stable_logits() {
    std::cout << "== Index inputs and extreme logits\n\n";
    Tape<float> tape;
    auto table = tape.parameter(Tensor<float>({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}));
    auto tokens = tape.indices({3}, {2, 0, 2});
    auto rows = topos::gather(table, tokens);
    auto logits = tape.leaf(Tensor<float>({1, 3}, {1e30f, -1e30f, 0.0f}));
    const Symbol looked_up = rows;
    const Symbol log_probabilities = logits.log_softmax(1);
    const auto adjoints = tape.differentiate(rows.sum(), {table});
    const auto network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters(), {});
    std::cout << "gather rows 2, 0, 2:           " << run.of(looked_up) << '\n'
              << "d sum / d table (scatter-add): " << run.of(adjoints.of(table)) << '\n'
              << "log_softmax of [1e30, -1e30, 0]: " << run.of(log_probabilities) << '\n';
}

}  // namespace

int main() {
    two_roads();
    a_compiled_training_step();
    a_hessian_vector_product();
    embeddings_and_stable_logits();
}
