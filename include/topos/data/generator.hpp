// data::Generator: a stream of random numbers that is the same on every
// platform, compiler and build: draw i is topos::init::counter_bits(seed, i),
// the counter-based generator behind every initialiser. std::mt19937 would do
// too, but std::uniform_int_distribution and std::shuffle are left to each
// standard library, so their draws differ between libstdc++ and libc++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace topos::data {

class Generator {
public:
    // The stream of `seed`, before its first draw.
    explicit Generator(std::uint64_t seed) : seed_(seed) {}

    // 64 uniform bits, e.g. the seed of a topos::init initialiser.
    std::uint64_t bits();

    // Uniform in [0, bound), bound >= 1. A 64-bit draw modulo the bound: its
    // bias is below bound / 2^64 (2^-44 for a million examples).
    std::size_t below(std::size_t bound) { return static_cast<std::size_t>(bits() % bound); }

    // Uniform in [0, 1), on the 2^53 grid.
    double unit() { return static_cast<double>(bits() >> 11) * 0x1p-53; }

    // How many draws were made: the generator's whole state, with the seed.
    std::uint64_t draws() const { return counter_; }

private:
    std::uint64_t seed_;
    std::uint64_t counter_ = 0;
};

// Fisher-Yates from the last item down, one draw per item but the first.
template <class Item>
void shuffle(std::vector<Item>& items, Generator& generator) {
    for (std::size_t i = items.size(); i > 1; --i) {
        std::swap(items[i - 1], items[generator.below(i)]);
    }
}

// 0, 1, ..., count - 1 in the order `generator` shuffles them.
std::vector<std::size_t> shuffled(std::size_t count, Generator& generator);

// The same with a fresh generator of `seed`: a permutation that depends only
// on (count, seed).
std::vector<std::size_t> shuffled(std::size_t count, std::uint64_t seed);

}  // namespace topos::data
