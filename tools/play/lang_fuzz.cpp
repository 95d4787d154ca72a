// lang_fuzz COUNT SEED: runs the playground language's parser, recorder and
// readings on COUNT generated programs (tests/lang/random_programs.hpp), valid
// and not. Fails, printing the program, on anything thrown that is not a
// topos::Error, on a broken promise (tests/lang/fuzz_harness.hpp), or by
// crashing; prints a tally at the end. One input in 4096 is also laid out as
// SVG, where Graphviz is built in.
#include "lang/fuzz_harness.hpp"
#include "lang/random_programs.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

void print_tally(const topos::lang::test::FuzzTally& tally, double seconds) {
    std::cout << tally.inputs << " inputs in " << seconds << " s: " << tally.read << " read, "
              << tally.program_errors << " program errors, " << tally.option_errors
              << " option errors, " << tally.other_errors << " other topos errors" << std::endl;
    if (!tally.last_other_error.empty()) {
        std::cout << "last other error: " << tally.last_other_error << '\n';
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: lang_fuzz COUNT SEED\n";
        return 2;
    }
    const auto count = std::strtoull(argv[1], nullptr, 10);
    const auto seed = std::strtoull(argv[2], nullptr, 10);
    topos::lang::test::ProgramGenerator generator(seed);
    topos::lang::test::Random random(seed ^ 0x5eedULL);
    topos::lang::test::FuzzTally tally;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::string program = generator.next();
        const bool svg = i % 4096 == 0;
        const std::string problem = topos::lang::test::fuzz_one(program, random, svg, tally);
        if (!problem.empty()) {
            std::cerr << "input " << i << " (seed " << seed << "): " << problem
                      << "\n--- program ---\n"
                      << program << "\n---\n";
            return 1;
        }
        if ((i + 1) % 100000 == 0) {
            const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
            print_tally(tally, elapsed.count());
        }
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    print_tally(tally, elapsed.count());
    return 0;
}
