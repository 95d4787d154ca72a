// The three element types: float, double and bfloat16. A network recorded in
// float runs in bf16 by the bf16 contract (each operation on the widened
// operands, rounded once), plans and emits in bf16, and trains in mixed
// precision: bf16 computation over a float master copy of the parameters.
#include <topos/topos.hpp>

#include <cstddef>
#include <iomanip>
#include <iostream>
#include <vector>

namespace {

using topos::bf16;
using topos::Tape;
using topos::Tensor;
using topos::Value;

void the_number() {
    std::cout << "== bf16, the number\n\n";
    const bf16 tenth(0.1);
    std::cout << "bf16(0.1) prints " << tenth << " and is exactly " << std::setprecision(12)
              << static_cast<double>(tenth) << std::setprecision(6) << "; its bits are 0x"
              << std::hex << tenth.bits() << std::dec << '\n';
    std::cout << "bf16(257) is " << bf16(257) << ": eight significant bits\n\n";
}

void one_network_three_types() {
    std::cout << "== One network, three element types\n\n";
    auto [network, weights, hidden, loss] = Tape<float>::record([](Tape<float>& tape) {
        auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
        auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
        auto hidden = input.matmul(weights).tanh();
        return topos::detach(weights, hidden, (hidden * hidden).sum());
    });
    const topos::Network<bf16> narrow = network.convert<bf16>();
    const topos::Network<double> wide = network.convert<double>();
    std::cout << "float  " << network.forward(network.parameters()).of(loss) << '\n';
    std::cout << "double " << wide.forward(wide.parameters()).of(loss) << '\n';
    std::cout << "bf16   " << narrow.forward(narrow.parameters()).of(loss) << '\n';
    std::cout << "bf16 hidden " << narrow.forward(narrow.parameters()).of(hidden) << "\n\n";
    const topos::Plan<bf16> plan = narrow.entry({loss}).lower();
    std::cout << plan.describe() << '\n';
    std::cout << plan.emit_stablehlo() << '\n';
}

// Three classes, each a blob around its own centre in four dimensions.
struct Blobs {
    Tensor<float> rows;
    Tensor<float> labels;
};

Blobs blobs(std::size_t count, std::uint64_t seed) {
    const Tensor<float> noise = topos::init::normal(seed, 0.6).make<float>(topos::Shape{count, 4});
    std::vector<float> rows(count * 4);
    std::vector<float> labels(count);
    for (std::size_t i = 0; i < count; ++i) {
        labels[i] = static_cast<float>(i % 3);
        for (std::size_t j = 0; j < 4; ++j) {
            const float centre = j == i % 3 ? 2.0f : 0.0f;
            rows[i * 4 + j] = centre + noise.data()[i * 4 + j];
        }
    }
    return {Tensor<float>({count, 4}, rows), Tensor<float>({count}, labels)};
}

void mixed_precision() {
    std::cout << "== Mixed precision: bf16 computation, a float master copy\n\n";
    Tape<float> tape;
    const topos::Mlp<float> mlp(tape, {4, 16, 3}, topos::Activation::Tanh, topos::init::xavier(11));
    const topos::Network<float> model = std::move(tape).into_network();
    const topos::Function<float> loss(model,
                                      [&](const Value<float>& x, const Value<float>& labels) {
                                          return topos::cross_entropy(mlp.express(x), labels);
                                      },
                                      {topos::Argument::Real, topos::Argument::Indices});
    const topos::MixedPrecision<float> mixed(loss);
    const topos::optim::Adam adam({.learning_rate = 0.02});
    topos::Parameters<float> master = model.parameters();
    auto state = adam.start(master);
    const Blobs train = blobs(96, 5);
    for (int step = 1; step <= 60; ++step) {
        const auto [value, gradients] = mixed.value_and_gradients(master, train.rows, train.labels);
        adam.step_in_place(master, gradients, state);
        if (step % 20 == 0) {
            std::cout << "step " << step << "  loss " << value.convert<bf16>() << '\n';
        }
    }
    std::cout << "the master copy holds " << master.of(mlp.parameters()[0]).elements()
              << " float weights in its first layer\n\n";
}

void products_in_bf16() {
    std::cout << "== bf16 products inside a float network: Convert and Autocast\n\n";
    Tape<float> tape;
    const auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.3f, 0.4f}));
    const auto input = tape.input(Tensor<float>({1, 2}, {1.1f, 2.0f}));
    const Value<float> in_float = input.matmul(weights);
    Value<float> in_bf16 = in_float;
    {
        const topos::Autocast products(topos::ElementType::BF16);
        in_bf16 = input.matmul(weights);
    }
    std::cout << tape.describe() << '\n';
    const topos::Network<float> network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters());
    std::cout << "float product " << run.of(in_float) << "\nbf16 product  " << run.of(in_bf16)
              << "\n\n";
    std::cout << network.entry({in_bf16}).lower().emit_stablehlo() << '\n';
}

void indices_past_256() {
    std::cout << "== Indices bf16 cannot hold\n\n";
    Tape<float> tape;
    const auto table = tape.parameter(Tensor<float>::filled({300, 2}, 0.5f));
    const auto ids = tape.indices(Tensor<float>({2}, {3.0f, 257.0f}));
    (void)topos::gather(table, ids);
    const topos::Network<float> network = std::move(tape).into_network();
    try {
        (void)network.convert<bf16>();
    } catch (const topos::FeedError& error) {
        std::cout << error.what() << '\n';
    }
}

}  // namespace

int main() {
    the_number();
    one_network_three_types();
    mixed_precision();
    products_in_bf16();
    indices_past_256();
    return 0;
}
