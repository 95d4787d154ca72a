// The seeds' networks the show tests draw, plot and card: the walk-through
// (loss = sum(tanh(input weights)^2), its gradient recorded or not), the
// convolution and pooling plan that elects two patterns, and the [8, 32, 32, 4]
// MLP planned for training and for inference; and the lines of a text.
#pragma once

#include <topos/topos.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace topos::show::test {

template <Element T = float>
struct Walkthrough {
    Network<T> network;
    Symbol weights;
    Symbol input;
    Symbol hidden;
    Symbol loss;
    std::optional<Adjoints<T>> adjoints;  // d loss / d weights, when recorded
    std::size_t appended = 0;             // the nodes differentiate recorded
};

template <Element T = float>
Walkthrough<T> walkthrough(bool with_gradient = false) {
    Tape<T> tape;
    auto weights = tape.parameter(Tensor<T>({2, 2}, {T(0.5), T(-0.25), T(0.25), T(0.4)}));
    auto input = tape.input(Tensor<T>({1, 2}, {T(1), T(2)}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    std::optional<Adjoints<T>> adjoints;
    const std::size_t before = tape.nodes().size();
    if (with_gradient) {
        adjoints = tape.differentiate(loss, {weights});
    }
    const std::size_t appended = tape.nodes().size() - before;
    return {std::move(tape).into_network(), weights, input, hidden, loss, adjoints, appended};
}

// The seeds' convolution: a 3x3 convolution, relu, a 2x2 max pool, a sum. Its
// plan elects a WindowProduct and a ReduceWindow.
inline Plan<float> convolution_plan() {
    Tape<float> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(init::normal(2, 0.3)(Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<float>::filled(Shape{2}, 0.0f));
    auto convolved = conv2d(image, filters, bias, 1, 0).relu();
    const Symbol loss = max_pool(convolved, 2, 2).sum();
    return std::move(tape).into_network().entry({loss}).lower();
}

// The [8, 32, 32, 4] MLP of examples/gallery/live_volume.cpp, planned twice.
struct TrainingAndInference {
    Plan<float> training;
    Plan<float> inference;
};

inline TrainingAndInference training_and_inference() {
    Tape<float> tape;
    const Mlp<float> mlp(tape, {8, 32, 32, 4}, Activation::Tanh, init::xavier(3));
    const Tensor<float> features = init::normal(5, 1.0)(Shape{64, 8});
    auto predicted = mlp.express(tape.input(features));
    auto loss = (predicted * predicted).sum();
    const auto adjoints = tape.differentiate(loss, mlp.parameters());
    const Symbol loss_symbol = loss;
    const auto network = std::move(tape).into_network();
    return {network.entry(adjoints.roots()).lower(), network.entry({loss_symbol}).lower()};
}

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

// The UTF-8 code points of `line`: its width in a terminal's columns.
inline std::size_t columns_of(std::string_view line) {
    return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

}  // namespace topos::show::test
