// The words data set (data/words.txt) as a character stream: 27 tokens, the
// boundary '.' (0) and the letters a..z (1..26). The words are shuffled with
// a seeded generator, a tenth held out for validation, and each part joined
// into one stream ".word.word.word." that windows are cut from.
#pragma once

#include "support/data_path.hpp"
#include <topos/data/generator.hpp>

#include <cstddef>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gallery {

inline constexpr std::size_t vocabulary = 27;
inline constexpr float boundary = 0;

inline float token_of(char letter) {
    return static_cast<float>(letter - 'a' + 1);
}

inline char letter_of(std::size_t token) {
    return token == 0 ? '.' : static_cast<char>('a' + token - 1);
}

inline std::vector<std::string> read_words() {
    std::ifstream file(data_path("words.txt"));
    if (!file) {
        throw std::runtime_error("cannot open " + data_path("words.txt"));
    }
    std::vector<std::string> words;
    for (std::string word; std::getline(file, word);) {
        words.push_back(word);
    }
    return words;
}

inline std::vector<float> stream_of(const std::vector<std::string>& words) {
    std::vector<float> tokens{boundary};
    for (const std::string& word : words) {
        for (const char letter : word) {
            tokens.push_back(token_of(letter));
        }
        tokens.push_back(boundary);
    }
    return tokens;
}

struct Corpus {
    std::vector<std::string> training_words;
    std::vector<float> training;    // the training words' stream
    std::vector<float> validation;  // the held-out words' stream
};

inline Corpus read_corpus(std::uint64_t seed) {
    std::vector<std::string> words = read_words();
    topos::data::Generator generator(seed);
    topos::data::shuffle(words, generator);
    const std::size_t held_out = words.size() / 10;
    const std::vector<std::string> validation(words.end() - static_cast<std::ptrdiff_t>(held_out),
                                              words.end());
    words.resize(words.size() - held_out);
    Corpus corpus{words, stream_of(words), stream_of(validation)};
    return corpus;
}

// Windows of `context` tokens and the token after each: inputs [count,
// context] and targets [count * context], the windows starting at `starts`.
struct Windows {
    std::vector<float> inputs;
    std::vector<float> targets;
};

inline Windows windows_at(const std::vector<float>& stream,
                          const std::vector<std::size_t>& starts,
                          std::size_t context) {
    Windows windows;
    for (const std::size_t start : starts) {
        windows.inputs.insert(windows.inputs.end(),
                              stream.begin() + static_cast<std::ptrdiff_t>(start),
                              stream.begin() + static_cast<std::ptrdiff_t>(start + context));
        windows.targets.insert(windows.targets.end(),
                               stream.begin() + static_cast<std::ptrdiff_t>(start + 1),
                               stream.begin() + static_cast<std::ptrdiff_t>(start + context + 1));
    }
    return windows;
}

inline std::vector<std::size_t> random_starts(std::size_t count,
                                              std::size_t stream_length,
                                              std::size_t context,
                                              topos::data::Generator& generator) {
    std::vector<std::size_t> starts(count);
    for (std::size_t& start : starts) {
        start = generator.below(stream_length - context);
    }
    return starts;
}

// `count` windows spread evenly over the stream (the validation set).
inline std::vector<std::size_t> even_starts(std::size_t count,
                                            std::size_t stream_length,
                                            std::size_t context) {
    std::vector<std::size_t> starts(count);
    const std::size_t gap = (stream_length - context - 1) / count;
    for (std::size_t i = 0; i < count; ++i) {
        starts[i] = i * gap;
    }
    return starts;
}

}  // namespace gallery
