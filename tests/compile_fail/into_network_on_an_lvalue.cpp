// Must not compile: sealing consumes the tape, so an lvalue tape is refused
// with a message that says to move it.
#include <topos/topos.hpp>

int main() {
    topos::Tape<double> tape;
    (void)tape.parameter(1.0);
    const auto network = tape.into_network();
    return static_cast<int>(network.nodes().size());
}
