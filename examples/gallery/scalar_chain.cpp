// A scalar chain: one weight and one bias turn degrees Celsius into degrees
// Fahrenheit, learned from a table of seven readings one reading per step
// (stochastic gradient descent). Each step runs a compiled plan of the
// recorded loss and its recorded derivative.
#include "support/report.hpp"
#include <topos/topos.hpp>

#include <array>
#include <cmath>
#include <iostream>

namespace {

struct Reading {
    double celsius;
    double fahrenheit;
};

constexpr std::array<Reading, 7> readings{
    {{-40, -40}, {-10, 14}, {0, 32}, {8, 46.4}, {15, 59}, {22, 71.6}, {38, 100.4}}};

}  // namespace

int main(int argc, char** argv) {
    gallery::TrainingReport report("Celsius to Fahrenheit, one reading at a time", argc, argv);
    topos::Tape<double> tape;
    auto weight = tape.parameter(0.0);
    auto bias = tape.parameter(0.0);
    auto celsius = tape.input(0.0);     // in hundreds of degrees, so one step size suits both
    auto fahrenheit = tape.input(0.0);  // likewise
    auto error = weight * celsius + bias - fahrenheit;
    auto loss = error * error;
    const auto adjoints = tape.differentiate(loss, {weight, bias});
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry(adjoints.roots()).numerics(topos::Numerics::Exact).lower();

    const std::size_t steps = 7000;
    topos::data::Progress progress(steps, {.every = 1000});
    auto parameters = network.parameters();
    for (std::size_t step = 0; step < steps; ++step) {
        const Reading& reading = readings[step % readings.size()];
        const auto run =
            plan.forward(parameters,
                         {{celsius, topos::Tensor<double>(reading.celsius / 100)},
                          {fahrenheit, topos::Tensor<double>(reading.fahrenheit / 100)}});
        parameters = parameters.step(
            run.recorded_gradients(adjoints),
            [](const auto& p, const auto& g) { return p - g * topos::Tensor<double>(0.1); });
        progress.update(step, run.of(loss).scalar(), 1);
    }
    progress.finish();
    const double w = parameters.of(weight).scalar();
    const double b = parameters.of(bias).scalar() * 100;
    std::cout << "learned: fahrenheit = " << w << " * celsius + " << b << '\n'
              << "exact:   fahrenheit = 1.8 * celsius + 32\n";
    const bool close = std::abs(w - 1.8) < 1e-3 && std::abs(b - 32) < 1e-2;
    std::cout << "within 0.001 of the slope and 0.01 of the offset: " << (close ? "yes" : "no")
              << '\n';
    report.losses("squared error", progress.losses());
    report.add("The plan", topos::show::card(plan));
    report.add("The network, its derivative shaded", topos::show::graph(network, adjoints));
    report.finish();
    return close ? 0 : 1;
}
