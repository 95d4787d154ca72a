// topos-play: reads a program of the playground language and prints its six
// readings (see <topos/lang/play.hpp> and `topos-play --help`).
#include <topos/lang/play.hpp>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::vector<std::string> arguments(argv + 1, argv + argc);
    return topos::lang::play(arguments, std::cout, std::cerr);
}
