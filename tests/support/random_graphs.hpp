// Seeded random graphs over the op catalog, for gradient tests and plan
// property tests. A graph mixes elementwise operations, matmul, sums, reshape,
// permute, broadcasts, narrow/pad and unfold/fold, and ends in one rank-0 loss
// that reads every value nothing else reads. Every input is kept away from kinks
// and poles by construction, whatever the sources hold (as long as they are in
// [-1, 1]): log and division see sigmoid(v) + 0.5, exp sees tanh(v), maximum
// sees operands at least 0.29 apart, and a value whose magnitude bound grows
// past 8 is squashed with tanh before it feeds a product. The same seed records
// the same graph on every platform and compiler (the generator is splitmix64,
// not <random>, and no recording depends on an unspecified evaluation order).
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/run/run.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topos::test {

// splitmix64: small, fast, and the same sequence everywhere.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next();

    // Uniform in [0, 1), 53 random bits.
    double uniform();

    double uniform(double low, double high) { return low + (high - low) * uniform(); }

    // Uniform in [low, high] with a random sign.
    double away_from_zero(double low, double high);

    // Uniform integer in [low, high].
    std::size_t between(std::size_t low, std::size_t high);

    bool chance(double probability) { return uniform() < probability; }

    // A shape of rank in [min_rank, max_rank], extents in [1, max_extent], where
    // about a third of the axes have extent 1.
    Shape shape(std::size_t min_rank, std::size_t max_rank, std::size_t max_extent);

    // Elements uniform in [low, high].
    template <Element T>
    Tensor<T> tensor(const Shape& shape, double low, double high) {
        return Tensor<T>::generate(shape, [&](std::span<T> out) {
            for (T& element : out) {
                element = static_cast<T>(uniform(low, high));
            }
        });
    }

    // Elements of magnitude in [low, high], random signs.
    template <Element T>
    Tensor<T> tensor_away_from_zero(const Shape& shape, double low, double high) {
        return Tensor<T>::generate(shape, [&](std::span<T> out) {
            for (T& element : out) {
                element = static_cast<T>(away_from_zero(low, high));
            }
        });
    }

private:
    std::uint64_t state_;
};

struct RandomGraphOptions {
    std::size_t operations = 24;    // random operations recorded (helper nodes come on top)
    std::size_t parameters = 3;     // initial parameter sources (more appear as needed)
    std::size_t inputs = 2;         // initial input sources
    std::size_t max_rank = 4;       // no value exceeds this rank
    std::size_t max_extent = 4;     // extents of fresh sources
    std::size_t max_elements = 64;  // no value exceeds this many elements
};

template <Element T>
struct RecordedGraph {
    Value<T> loss;                     // rank 0
    std::vector<Value<T>> parameters;  // every Parameter recorded, in order
    std::vector<Value<T>> inputs;      // every Input recorded, in order
    std::vector<Value<T>> values;      // every computed value the generator chose, in order
};

// Records a random graph on `tape` (which may already hold nodes; they are not read).
template <Element T>
RecordedGraph<T> record_random_graph(Tape<T>& tape,
                                     std::uint64_t seed,
                                     const RandomGraphOptions& options = {});

template <Element T>
struct RandomGraph {
    Network<T> network;
    Symbol loss;
    std::vector<Symbol> parameters;
    std::vector<Symbol> inputs;
    std::vector<Symbol> values;
};

// record_random_graph on a fresh tape, sealed.
template <Element T>
RandomGraph<T> random_graph(std::uint64_t seed, const RandomGraphOptions& options = {});

// Feeds for `inputs` with elements uniform in [-1, 1] (the safe domain).
template <Element T>
std::vector<Feed<T>> random_feeds(const Network<T>& network,
                                  const std::vector<Symbol>& inputs,
                                  std::uint64_t seed);

// Parameters of `network` with elements uniform in [-1, 1].
template <Element T>
Parameters<T> random_parameters(const Network<T>& network, std::uint64_t seed);

}  // namespace topos::test
