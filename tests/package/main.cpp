// The find_package consumer: records (w x - y)^2 on a tape, runs it forward and
// backward through the installed library, and prints d loss / d w, which is
// 2 (w x - y) x = -12 for w = 0.5, x = 2, y = 4. Then it saves and loads a
// checkpoint, whose JSON header the library parses with a private dependency
// this project neither finds nor links.
#include <topos/topos.hpp>

#include <filesystem>
#include <iostream>
#include <utility>

int main() {
    topos::Tape<double> tape;
    const auto w = tape.parameter(0.5);
    const auto x = tape.input(2.0);
    const auto y = tape.input(4.0);
    const auto error = w * x - y;
    const auto loss = error * error;
    const topos::Symbol w_symbol = w.symbol();
    const topos::Symbol loss_symbol = loss.symbol();
    const topos::Network<double> network = std::move(tape).into_network();
    const auto run = network.forward(network.parameters());
    const auto gradients = run.backward(loss_symbol);
    std::cout << "topos " << TOPOS_VERSION << '\n'
              << "loss = " << run.of(loss_symbol).scalar() << '\n'
              << "d loss / d w = " << gradients.of(w_symbol).scalar() << '\n';
    const auto path = std::filesystem::temp_directory_path() / "topos_consumer.safetensors";
    topos::checkpoint::save(path, network.parameters());
    const auto loaded = topos::checkpoint::load(path, network);
    std::filesystem::remove(path);
    std::cout << "checkpoint round trip: " << (loaded.of(w_symbol).scalar() == 0.5 ? "yes" : "no")
              << '\n';
}
