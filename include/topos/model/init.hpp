// topos::init: initialisers, callables Shape -> Tensor<T>. Every value comes
// from a counter-based generator (element i of a tensor is a pure function of
// the seed and i) and the project's own transforms, so a seed gives the same
// tensor on every platform, compiler and build.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>

#include <cstdint>
#include <ostream>

namespace topos::init {

// What an initialiser returns: converts to Tensor<float> or Tensor<double>, so
// one initialiser serves either element type.
template <class Initialiser>
class Made {
public:
    // What `initialiser` makes at `shape`, made when converted.
    Made(const Initialiser& initialiser, Shape shape) : initialiser_(initialiser), shape_(shape) {}

    // The tensor, of the element type the conversion asks for.
    template <Element T>
    operator Tensor<T>() const {  // NOLINT(google-explicit-constructor)
        return initialiser_.template make<T>(shape_);
    }

    // The tensor of one element type, where no conversion says which.
    template <Element T>
    Tensor<T> as() const {
        return initialiser_.template make<T>(shape_);
    }

    // The shape it makes.
    const Shape& shape() const { return shape_; }

    // Prints the double tensor (`as<float>()` prints the float one).
    friend std::ostream& operator<<(std::ostream& out, const Made& made) {
        return out << made.template as<double>();
    }

private:
    Initialiser initialiser_;
    Shape shape_;
};

// Uniform in [low, high).
class Uniform {
public:
    // Seeded by `seed`, in [low, high).
    Uniform(std::uint64_t seed, double low, double high) : seed_(seed), low_(low), high_(high) {}

    // The tensor of `shape`: element i depends only on the seed and i.
    template <Element T>
    Tensor<T> make(const Shape& shape) const;

    // What converts to a tensor of `shape` of either element type.
    Made<Uniform> operator()(const Shape& shape) const { return {*this, shape}; }

private:
    std::uint64_t seed_;
    double low_;
    double high_;
};

// Normal with mean 0 and standard deviation `stddev` (Box-Muller on the
// project's exact log, sqrt and cos/sin).
class Normal {
public:
    // Seeded by `seed`, with standard deviation `stddev`.
    Normal(std::uint64_t seed, double stddev) : seed_(seed), stddev_(stddev) {}

    // The tensor of `shape`: element i depends only on the seed and i.
    template <Element T>
    Tensor<T> make(const Shape& shape) const;

    // What converts to a tensor of `shape` of either element type.
    Made<Normal> operator()(const Shape& shape) const { return {*this, shape}; }

private:
    std::uint64_t seed_;
    double stddev_;
};

// Scaled by the shape's fans: rank 2 is [fan_in, fan_out] (a weight applied as
// x.matmul(w)); rank >= 3 is [out, in, kernel...] (convolution filters); rank 1
// counts its extent as both fans.
enum class Scaling : std::uint8_t {
    Xavier,   // uniform in +-sqrt(6 / (fan_in + fan_out))  (Glorot)
    Kaiming,  // normal with stddev sqrt(2 / fan_in)           (He)
    Zeros,
};

// An initialiser scaled by the shape's fans as `scaling` says: xavier, kaiming, zeros.
class Scaled {
public:
    // Seeded by `seed`, scaled as `scaling` says.
    Scaled(std::uint64_t seed, Scaling scaling) : seed_(seed), scaling_(scaling) {}

    // The tensor of `shape`, from the fans of `shape`.
    template <Element T>
    Tensor<T> make(const Shape& shape) const;

    // What converts to a tensor of `shape` of either element type.
    Made<Scaled> operator()(const Shape& shape) const { return {*this, shape}; }

private:
    std::uint64_t seed_;
    Scaling scaling_;
};

// Uniform in [low, high), seeded by `seed`.
inline Uniform uniform(std::uint64_t seed, double low, double high) {
    return {seed, low, high};
}

// Normal with mean 0 and standard deviation `stddev`, seeded by `seed`.
inline Normal normal(std::uint64_t seed, double stddev) {
    return {seed, stddev};
}

// Glorot: uniform in +-sqrt(6 / (fan_in + fan_out)), seeded by `seed`.
inline Scaled xavier(std::uint64_t seed) {
    return {seed, Scaling::Xavier};
}

// He: normal with standard deviation sqrt(2 / fan_in), seeded by `seed`.
inline Scaled kaiming(std::uint64_t seed) {
    return {seed, Scaling::Kaiming};
}

// Every element 0.
inline Scaled zeros() {
    return {0, Scaling::Zeros};
}

// A 64-bit value that depends only on (seed, counter): the generator behind
// every initialiser.
std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t counter);

extern template Tensor<float> Uniform::make<float>(const Shape&) const;
extern template Tensor<double> Uniform::make<double>(const Shape&) const;
extern template Tensor<float> Normal::make<float>(const Shape&) const;
extern template Tensor<double> Normal::make<double>(const Shape&) const;
extern template Tensor<float> Scaled::make<float>(const Shape&) const;
extern template Tensor<double> Scaled::make<double>(const Shape&) const;

}  // namespace topos::init
