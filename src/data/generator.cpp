// Generator::bits (the next counter-based draw) and data::shuffled, the
// positions 0 to count - 1 in an order every platform reproduces.
#include <topos/data/generator.hpp>
#include <topos/model/init.hpp>

namespace topos::data {

std::uint64_t Generator::bits() {
    return init::counter_bits(seed_, counter_++);
}

std::vector<std::size_t> shuffled(std::size_t count, Generator& generator) {
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    shuffle(order, generator);
    return order;
}

std::vector<std::size_t> shuffled(std::size_t count, std::uint64_t seed) {
    Generator generator(seed);
    return shuffled(count, generator);
}

}  // namespace topos::data
