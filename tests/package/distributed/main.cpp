// The distributed consumer: every rank contributes its rank + 1 to an
// all_reduce of a parameter, and rank 0 prints the sum, which is
// size (size + 1) / 2, beside what broadcast gave it.
#include <topos/distributed.hpp>
#include <topos/topos.hpp>

#include <iostream>
#include <utility>

int main() {
    const topos::distributed::Communicator world;
    topos::Tape<double> tape;
    const auto w = tape.parameter(static_cast<double>(world.rank() + 1));
    const topos::Symbol w_symbol = w.symbol();
    const topos::Network<double> network = std::move(tape).into_network();
    const auto summed = world.all_reduce(network.parameters());
    const auto broadcast = world.broadcast(network.parameters());
    if (world.rank() == 0) {
        std::cout << "ranks: " << world.size() << '\n'
                  << "sum over ranks: " << summed.of(w_symbol).item() << '\n'
                  << "broadcast from rank 0: " << broadcast.of(w_symbol).item() << '\n';
    }
}
