// Recording: shapes checked as each line is written, values and symbols,
// sealing and reopening, and what a reduction over nothing gives. The guide
// docs/guide/recording.md quotes this program and its golden output.
#include <topos/topos.hpp>

#include <iostream>

namespace {

void shapes_at_record_time() {
    std::cout << "== Shapes at record time\n\n";
    topos::Tape<float> tape;
    auto x = tape.input(topos::Tensor<float>::filled({8, 3}, 1.0f));
    auto w = tape.parameter(topos::Tensor<float>::filled({4, 2}, 0.5f));
    try {
        auto y = x.matmul(w);
        (void)y;
    } catch (const topos::ShapeError& error) {
        std::cout << "ShapeError: " << error.what() << "\n\n";
    }
    std::cout << tape.describe() << "\n\n";
}

void broadcasting_is_spelled_out() {
    std::cout << "== Broadcasting is spelled out\n\n";
    topos::Tape<float> tape;
    auto x = tape.input(topos::Tensor<float>::filled({8, 3}, 1.0f));
    auto b = tape.parameter(topos::Tensor<float>::filled({3}, 0.0f));
    auto y = x + b;
    (void)y;
    std::cout << tape.describe() << "\n\n";
}

void values_and_symbols() {
    std::cout << "== Values and symbols\n\n";
    topos::Symbol product;
    topos::Symbol w_symbol;
    topos::Network<double> network = [&] {
        topos::Tape<double> tape;
        auto w = tape.parameter(3.0);
        auto x = tape.input(2.0);
        auto y = w * x;
        product = y.symbol();
        w_symbol = w;
        return std::move(tape).into_network();
    }();
    auto run = network.forward(network.parameters(), {});
    std::cout << "w x = " << run.of(product)
              << ", d(w x)/dw = " << run.backward(product).of(w_symbol) << "\n\n";
}

void sealing() {
    std::cout << "== Sealing\n\n";
    topos::Tape<double> tape;
    auto w = tape.parameter(1.0);
    auto network = std::move(tape).into_network();
    try {
        auto more = w * w;
        (void)more;
    } catch (const topos::TapeError& error) {
        std::cout << "TapeError: " << error.what() << "\n\n";
    }
    std::cout << network.describe() << "\n\n";
}

void reopening() {
    std::cout << "== Reopening\n\n";
    auto [network, w, x, loss] = topos::Tape<double>::record([](topos::Tape<double>& tape) {
        auto w = tape.parameter(3.0);
        auto x = tape.input(2.0);
        return topos::detach(w, x, w * x);
    });
    topos::Tape<double> more = network.reopen();
    auto penalty = more.value(w) * more.value(w);
    auto total = more.value(loss) + penalty;
    topos::Symbol total_symbol = total;
    auto extended = std::move(more).into_network();
    std::cout << extended.describe() << "\n\n";
    auto run = extended.forward(network.parameters(), {{x, 5.0}});
    std::cout << "loss = " << run.of(loss) << ", total = " << run.of(total_symbol)
              << ", d total / d w = " << run.backward(total_symbol).of(w) << '\n';
    try {
        (void)network.node(total_symbol);
    } catch (const topos::SymbolError& error) {
        std::cout << "SymbolError: " << error.what() << "\n\n";
    }
}

void a_sum_over_nothing() {
    std::cout << "== A sum over nothing\n\n";
    auto [network, total] = topos::Tape<float>::record([](topos::Tape<float>& tape) {
        auto empty = tape.input(topos::Tensor<float>::filled({0, 3}, 1.0f));
        return topos::detach(empty.sum());
    });
    auto run = network.forward(network.parameters(), {});
    std::cout << "sum of a [0, 3] tensor: " << run.of(total) << '\n';
}

}  // namespace

int main() {
    shapes_at_record_time();
    broadcasting_is_spelled_out();
    values_and_symbols();
    sealing();
    reopening();
    a_sum_over_nothing();
}
