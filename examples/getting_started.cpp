// The getting-started walk-through: record a tape, read it, take a gradient,
// train a parameter. Each section prints what the seeds' first page prints.
#include <topos/topos.hpp>

#include <cmath>
#include <iostream>

namespace {

void the_first_tape() {
    std::cout << "== The first tape\n\n";
    topos::Tape<double> tape;
    auto w = tape.parameter(0.0);
    auto x = tape.input(0.0);
    auto y = tape.input(0.0);
    auto error = w * x - y;
    auto loss = error * error;
    (void)loss;
    std::cout << tape.describe() << '\n';
}

void a_gradient() {
    std::cout << "== A gradient\n\n";
    auto [network, w, x, y, loss] = topos::Tape<double>::record([](topos::Tape<double>& tape) {
        auto w = tape.parameter(0.5);
        auto x = tape.input(2.0);
        auto y = tape.input(4.0);
        auto error = w * x - y;
        return topos::detach(w, x, y, error * error);
    });
    auto run = network.forward(network.parameters(), {});
    auto gradients = run.backward(loss);
    std::cout << "loss = (w x - y)^2           = " << run.of(loss) << '\n'
              << "d loss / d w = 2 (w x - y) x = " << gradients.of(w) << '\n'
              << "d loss / d x = 2 (w x - y) w = " << gradients.of(x) << '\n'
              << "d loss / d y = -2 (w x - y)  = " << gradients.of(y) << "\n\n";
}

void a_training_step() {
    std::cout << "== A training step\n\n";
    auto [network, w, x, y, loss] = topos::Tape<double>::record([](topos::Tape<double>& tape) {
        auto w = tape.parameter(0.0);
        auto x = tape.input(0.0);
        auto y = tape.input(0.0);
        auto error = w * x - y;
        return topos::detach(w, x, y, error * error);
    });
    auto parameters = network.parameters();
    const double samples[][2] = {{1.0, 2.0}, {2.0, 4.0}, {3.0, 6.0}};
    for (int step = 0; step < 100; ++step) {
        const auto& [sample_x, sample_y] = samples[step % 3];
        auto run = network.forward(parameters, {{x, sample_x}, {y, sample_y}});
        auto gradients = run.backward(loss).parameters(parameters);
        parameters = parameters.step(gradients, [](const auto& weight, const auto& gradient) {
            return weight - gradient * topos::Tensor<double>(0.02);
        });
        if (step % 25 == 0 || step == 99) {
            std::cout << "step " << step << ": squared error " << run.of(loss) << '\n';
        }
    }
    const double learned = parameters.of(w).scalar();
    std::cout << "learned w = " << learned
              << " (|w - 2| < 1e-6: " << (std::abs(learned - 2.0) < 1e-6 ? "yes" : "no") << ")\n";
}

}  // namespace

int main() {
    the_first_tape();
    a_gradient();
    a_training_step();
}
