// Emission: a plan written as StableHLO, the text an industrial compiler (XLA,
// IREE) reads, in MLIR's pretty form and in its generic operation form.
#include <topos/topos.hpp>

#include <iostream>

namespace {

using topos::Tape;
using topos::Tensor;

void the_plan_as_text() {
    std::cout << "== The plan as text\n\n";
    auto [network, w, x, y, loss] = Tape<double>::record([](Tape<double>& tape) {
        auto w = tape.parameter(0.0);
        auto x = tape.input(0.0);
        auto y = tape.input(0.0);
        auto error = w * x - y;
        return topos::detach(w, x, y, error * error);
    });
    const auto plan = network.entry({loss}).lower();
    std::cout << plan.emit_stablehlo() << '\n';
    std::cout << "== The generic form\n\n";
    std::cout << plan.emit_stablehlo(topos::MlirForm::Generic) << '\n';
}

void a_training_plan() {
    std::cout << "== A training plan\n\n";
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const auto adjoints = tape.differentiate(loss, {weights});
    const auto network = std::move(tape).into_network();
    std::cout << network.entry(adjoints.roots()).lower().emit_stablehlo() << '\n';
}

void a_composed_operation() {
    std::cout << "== An operation written as several\n\n";
    Tape<float> tape;
    auto logits = tape.input(Tensor<float>({2, 3}, {1.0f, 2.0f, 3.0f, 1.0f, 1.0f, 1.0f}));
    auto normalised = logits.log_softmax(1);
    const auto network = std::move(tape).into_network();
    std::cout << network.entry({normalised}).lower().emit_stablehlo() << '\n';
}

// The seeds' conv example: its elected convolution and max pool are written as
// the named operations they stand for.
void elected_patterns_raise() {
    std::cout << "== What raises\n\n";
    Tape<float> tape;
    auto image = tape.input(topos::init::normal(1, 1.0)(topos::Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(topos::init::normal(2, 0.3)(topos::Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<float>::filled(topos::Shape{2}, 0.0f));
    auto convolved = topos::conv2d(image, filters, bias, 1, 0).relu();
    auto pooled = topos::max_pool(convolved, 2, 2);
    auto loss = pooled.sum();
    const auto network = std::move(tape).into_network();
    std::cout << network.entry({loss}).lower().emit_stablehlo() << '\n';
}

// Batch norm training with its statistics observed: the named operation's
// second and third results are the mean and the variance.
void batch_norm_statistics_are_results() {
    std::cout << "== Batch norm statistics\n\n";
    Tape<float> tape;
    auto input = tape.input(topos::init::normal(4, 1.0)(topos::Shape{4, 3, 2, 2}));
    auto gamma = tape.parameter(Tensor<float>::filled(topos::Shape{3}, 1.0f));
    auto beta = tape.parameter(Tensor<float>::filled(topos::Shape{3}, 0.0f));
    const auto normalised = topos::batch_norm_training(input, gamma, beta);
    const auto network = std::move(tape).into_network();
    const auto plan =
        network.entry({normalised.output}).observe({normalised.mean, normalised.variance}).lower();
    std::cout << plan.emit_stablehlo() << '\n';
}

void when_a_plan_cannot_be_written() {
    std::cout << "== When a plan cannot be written\n\n";
    Tape<double> tape;
    auto table = tape.parameter(Tensor<double>::filled({0, 4}, 0.0));
    auto rows = gather(table, tape.indices(Tensor<double>::filled({0}, 0.0)));
    const auto network = std::move(tape).into_network();
    try {
        std::cout << network.entry({rows}).lower().emit_stablehlo();
    } catch (const topos::EmitError& error) {
        std::cout << "EmitError: " << error.what() << '\n';
    }
}

}  // namespace

int main() {
    the_plan_as_text();
    a_training_plan();
    a_composed_operation();
    elected_patterns_raise();
    batch_norm_statistics_are_results();
    when_a_plan_cannot_be_written();
}
