// Patterns and fusion: the catalog matches convolution, pooling and batch-norm
// structures over the spec; a plan elects the matches it can use and serves
// each with one fused kernel, returning the interpreter's bits.
#include <topos/topos.hpp>

#include <cstdlib>
#include <iostream>
#include <vector>

namespace {

using topos::Shape;
using topos::Symbol;
using topos::Tape;
using topos::Tensor;

void print_patterns(const topos::Plan<float>& plan) {
    const std::size_t count = plan.patterns().size();
    std::cout << count << (count == 1 ? " pattern" : " patterns") << " elected:\n";
    for (const topos::Pattern& pattern : plan.patterns()) {
        std::cout << pattern << '\n';
    }
}

struct ConvNet {
    topos::Network<float> network;
    Symbol windows;  // an interior value of the convolution
    Symbol loss;
};

// The seeds' example: a 3x3 convolution, relu, a 2x2 max pool, a sum.
ConvNet record_conv_net() {
    Tape<float> tape;
    auto image = tape.input(topos::init::normal(1, 1.0)(Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(topos::init::normal(2, 0.3)(Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<float>::filled(Shape{2}, 0.0f));
    auto convolved = topos::conv2d(image, filters, bias, 1, 0).relu();
    auto pooled = topos::max_pool(convolved, 2, 2);
    auto loss = pooled.sum();
    const Symbol windows = tape.nodes()[6].symbol();
    return {std::move(tape).into_network(), windows, loss};
}

void patterns_are_offers() {
    std::cout << "== Patterns are offers\n\n";
    const ConvNet net = record_conv_net();
    const auto plan = net.network.entry({net.loss}).lower();
    std::cout << plan.describe() << '\n';
    print_patterns(plan);
    std::cout << '\n';
}

void observing_an_interior_value_blocks_the_election() {
    std::cout << "== Observing an interior value\n\n";
    const ConvNet net = record_conv_net();
    const auto plan = net.network.entry({net.loss}).observe({net.windows}).lower();
    print_patterns(plan);
    std::cout << '\n';
}

void batch_norm_statistics_survive_fusion() {
    std::cout << "== Batch norm: observed statistics are written back\n\n";
    Tape<float> tape;
    auto input = tape.input(topos::init::normal(4, 1.0)(Shape{4, 3, 2, 2}));
    auto gamma = tape.parameter(Tensor<float>::filled(Shape{3}, 1.0f));
    auto beta = tape.parameter(Tensor<float>::filled(Shape{3}, 0.0f));
    const auto normalised = topos::batch_norm_training(input, gamma, beta);
    auto loss = normalised.output.square().sum();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({loss}).observe({normalised.mean, normalised.variance}).lower();
    print_patterns(plan);
    std::cout << "written back: ";
    for (const Symbol& result : plan.patterns()[0].results()) {
        std::cout << result.index() << ' ';
    }
    const auto run = plan.forward(network.parameters());
    std::cout << "\nbatch mean " << run.of(normalised.mean) << '\n';
    std::cout << "batch variance " << run.of(normalised.variance) << "\n\n";
}

void the_derivative_elects_too() {
    std::cout << "== Training: the derivative elects patterns too\n\n";
    Tape<float> tape;
    auto image = tape.input(topos::init::normal(1, 1.0)(Shape{2, 1, 8, 8}));
    auto filters = tape.parameter(topos::init::normal(2, 0.3)(Shape{4, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<float>::filled(Shape{4}, 0.0f));
    auto more_filters = tape.parameter(topos::init::normal(3, 0.3)(Shape{3, 4, 3, 3}));
    auto more_bias = tape.parameter(Tensor<float>::filled(Shape{3}, 0.0f));
    auto convolved = topos::conv2d(image, filters, bias, 1, 1).relu();
    auto pooled = topos::max_pool(convolved, 2, 2);
    auto loss = topos::conv2d(pooled, more_filters, more_bias, 1, 1).square().sum();
    const auto adjoints = tape.differentiate(loss, {filters, bias, more_filters, more_bias});
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry(adjoints.roots()).numerics(topos::Numerics::Exact).lower();
    print_patterns(plan);
    const auto exact = network.forward(network.parameters());
    const auto fused = plan.forward(network.parameters());
    const Symbol gradient = adjoints.of(filters);
    const bool same = fused.of(gradient) == exact.of(gradient);
    std::cout << "first filter gradient, fused plan == interpreter: " << (same ? "yes" : "no")
              << '\n';
}

}  // namespace

int main() {
    patterns_are_offers();
    observing_an_interior_value_blocks_the_election();
    batch_norm_statistics_survive_fusion();
    the_derivative_elects_too();
    return EXIT_SUCCESS;
}
