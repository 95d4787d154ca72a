// The text consumer: opens the tokenizer model it is given, encodes a line
// with BOS, decodes it back, and says whether the text came back whole.
#include <topos/text.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: topos_text_consumer TOKENIZER.model\n";
        return 2;
    }
    const topos::Tokenizer tokenizer = topos::Tokenizer::open(argv[1]);
    const std::string line = "Once upon a time, a little fox found a shiny stone.";
    const std::vector<std::int64_t> ids = tokenizer.encode(line, topos::Ends::Bos);
    std::cout << "vocabulary: " << tokenizer.vocabulary() << '\n'
              << "starts with bos: " << (ids.front() == tokenizer.bos() ? "yes" : "no") << '\n'
              << "round trip: " << (tokenizer.decode(ids) == line ? "yes" : "no") << '\n';
}
