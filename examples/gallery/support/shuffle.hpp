// Seeded shuffling that gives the same order on every platform: a
// Fisher-Yates pass drawing from topos's counter-based generator (the one
// behind topos::init), not std::shuffle, whose draws the standard leaves to
// each library.
#pragma once

#include <topos/model/init.hpp>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace gallery {

class Generator {
public:
    explicit Generator(std::uint64_t seed) : seed_(seed) {}

    // Uniform in [0, bound), bound >= 1 (the modulo bias of a 64-bit draw is
    // below 2^-40 for the bounds used here).
    std::size_t below(std::size_t bound) { return static_cast<std::size_t>(bits() % bound); }

    // Uniform in [0, 1).
    double unit() { return static_cast<double>(bits() >> 11) * 0x1p-53; }

    // 64 uniform bits, e.g. the seed of a topos::init initialiser.
    std::uint64_t bits() { return topos::init::counter_bits(seed_, counter_++); }

private:
    std::uint64_t seed_;
    std::uint64_t counter_ = 0;
};

template <class Item>
void shuffle(std::vector<Item>& items, Generator& generator) {
    for (std::size_t i = items.size(); i > 1; --i) {
        std::swap(items[i - 1], items[generator.below(i)]);
    }
}

inline std::vector<std::size_t> shuffled_order(std::size_t count, Generator& generator) {
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    shuffle(order, generator);
    return order;
}

}  // namespace gallery
