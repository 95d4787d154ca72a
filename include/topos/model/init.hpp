// topos::init: initialisers, callables Shape -> Tensor<T>. Each owns a
// splitmix64 stream, the original design's generator: the state starts at the
// seed and advances by 0x9E3779B97F4A7C15 before each draw, so successive calls
// of one initialiser continue its stream (the layers of an Mlp built from one
// initialiser differ) while a fresh initialiser of the same seed starts it
// again. Every value is computed in double from the project's exact functions
// and rounded once to the element type, so a seed gives the same tensor on
// every platform, compiler and build.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>

#include <cstdint>
#include <ostream>

namespace topos::init {

// The splitmix64 generator: 64 uniform bits a draw, a uniform in [0, 1) from
// the top 53 of them, a normal as the cosine half of a Box-Muller pair.
class Stream {
public:
    // The stream of `seed`, before its first draw.
    explicit Stream(std::uint64_t seed) : state_(seed) {}

    // The state advanced by 0x9E3779B97F4A7C15, then mixed (shifts 30, 27, 31).
    std::uint64_t bits();

    // The next draw's top 53 bits over 2^53: in [0, 1).
    double unit();

    // sqrt(-2 ln(1 - u1)) cos(2 pi u2) from the next two uniforms; the sine
    // half of the pair is not used.
    double standard_normal();

    // Moves past `count` draws without computing them.
    void skip(std::uint64_t count) { state_ += count * 0x9e3779b97f4a7c15ULL; }

private:
    std::uint64_t state_;
};

// What an initialiser returns: converts to Tensor<float> or Tensor<double>, so
// one initialiser serves either element type. It holds the initialiser as it
// was when called (the initialiser itself has moved past these draws), so
// every conversion gives the same values.
template <class Initialiser>
class Made {
public:
    // What `initialiser` makes at `shape` from its present state, made when converted.
    Made(const Initialiser& initialiser, Shape shape) : initialiser_(initialiser), shape_(shape) {}

    // The tensor, of the element type the conversion asks for.
    template <Element T>
    operator Tensor<T>() const {  // NOLINT(google-explicit-constructor)
        return as<T>();
    }

    // The tensor of one element type, where no conversion says which.
    template <Element T>
    Tensor<T> as() const {
        Initialiser snapshot = initialiser_;
        return snapshot.template make<T>(shape_);
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

// Uniform in [low, high): low + (high - low) u.
class Uniform {
public:
    // Seeded by `seed`, in [low, high).
    Uniform(std::uint64_t seed, double low, double high) : stream_(seed), low_(low), high_(high) {}

    // The tensor of `shape`, drawn row-major; the stream moves past its draws.
    template <Element T>
    Tensor<T> make(const Shape& shape);

    // What converts to a tensor of `shape` of either element type.
    Made<Uniform> operator()(const Shape& shape);

private:
    Stream stream_;
    double low_;
    double high_;
};

// Normal with mean 0 and standard deviation `stddev`: two draws an element.
class Normal {
public:
    // Seeded by `seed`, with standard deviation `stddev`.
    Normal(std::uint64_t seed, double stddev) : stream_(seed), stddev_(stddev) {}

    // The tensor of `shape`, drawn row-major; the stream moves past its draws.
    template <Element T>
    Tensor<T> make(const Shape& shape);

    // What converts to a tensor of `shape` of either element type.
    Made<Normal> operator()(const Shape& shape);

private:
    Stream stream_;
    double stddev_;
};

// Scaled by the shape's fans: rank 2 is [fan_in, fan_out] (a weight applied as
// x.matmul(w)); rank >= 3 is [out, in, kernel...] (convolution filters, fan_in
// = in times the kernel's volume, fan_out = out times it); rank 1 is a bias,
// all zeros, and draws nothing. Rank 0 is refused (ShapeError).
enum class Scaling : std::uint8_t {
    Xavier,   // (2u - 1) sqrt(6 / (fan_in + fan_out))  (Glorot)
    Kaiming,  // normal with stddev sqrt(2 / fan_in)    (He)
    Zeros,
};

// An initialiser scaled by the shape's fans as `scaling` says: xavier, kaiming, zeros.
class Scaled {
public:
    // Seeded by `seed`, scaled as `scaling` says.
    Scaled(std::uint64_t seed, Scaling scaling) : stream_(seed), scaling_(scaling) {}

    // The tensor of `shape`, from the fans of `shape`; the stream moves past its draws.
    template <Element T>
    Tensor<T> make(const Shape& shape);

    // What converts to a tensor of `shape` of either element type.
    Made<Scaled> operator()(const Shape& shape);

private:
    // How many draws `make` takes for `shape`.
    std::uint64_t draws(const Shape& shape) const;

    // ShapeError for a rank-0 shape, which has no fans.
    void check_rank(const Shape& shape) const;

    Stream stream_;
    Scaling scaling_;
};

// Inverted-dropout masks: 1 / keep where the draw u < keep, else 0.
class DropoutMask {
public:
    // Seeded by `seed`, keeping each element with probability `keep` in (0, 1]
    // (ShapeError otherwise).
    DropoutMask(std::uint64_t seed, double keep);

    // The mask of `shape`, drawn row-major; the stream moves past its draws.
    template <Element T>
    Tensor<T> make(const Shape& shape);

    // What converts to a mask of `shape` of either element type.
    Made<DropoutMask> operator()(const Shape& shape);

private:
    Stream stream_;
    double keep_;
};

// Every element `value` (rounded once to the element type); draws nothing.
class Constant {
public:
    // Every element `value`.
    explicit Constant(double value) : value_(value) {}

    // The tensor of `shape`, filled.
    template <Element T>
    Tensor<T> make(const Shape& shape) const {
        return Tensor<T>::filled(shape, static_cast<T>(value_));
    }

private:
    double value_;
};

// Every element `value`: init::constant(1.0) is a norm's weight of ones.
inline Constant constant(double value) {
    return Constant(value);
}

// Uniform in [low, high), seeded by `seed`.
inline Uniform uniform(std::uint64_t seed, double low, double high) {
    return {seed, low, high};
}

// Normal with mean 0 and standard deviation `stddev`, seeded by `seed`.
inline Normal normal(std::uint64_t seed, double stddev) {
    return {seed, stddev};
}

// Glorot: uniform within +-sqrt(6 / (fan_in + fan_out)), seeded by `seed`; biases zero.
inline Scaled xavier(std::uint64_t seed) {
    return {seed, Scaling::Xavier};
}

// He: normal with standard deviation sqrt(2 / fan_in), seeded by `seed`; biases zero.
inline Scaled kaiming(std::uint64_t seed) {
    return {seed, Scaling::Kaiming};
}

// Every element 0.
inline Scaled zeros() {
    return {0, Scaling::Zeros};
}

// Inverted-dropout masks keeping each element with probability `keep`, seeded by `seed`.
inline DropoutMask dropout(std::uint64_t seed, double keep) {
    return {seed, keep};
}

// A 64-bit value that depends only on (seed, counter): the counter-based
// generator behind data::Generator and the loader's epoch orders.
std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t counter);

extern template Tensor<float> Uniform::make<float>(const Shape&);
extern template Tensor<double> Uniform::make<double>(const Shape&);
extern template Tensor<bf16> Uniform::make<bf16>(const Shape&);
extern template Tensor<float> Normal::make<float>(const Shape&);
extern template Tensor<double> Normal::make<double>(const Shape&);
extern template Tensor<bf16> Normal::make<bf16>(const Shape&);
extern template Tensor<float> Scaled::make<float>(const Shape&);
extern template Tensor<double> Scaled::make<double>(const Shape&);
extern template Tensor<bf16> Scaled::make<bf16>(const Shape&);
extern template Tensor<float> DropoutMask::make<float>(const Shape&);
extern template Tensor<double> DropoutMask::make<double>(const Shape&);
extern template Tensor<bf16> DropoutMask::make<bf16>(const Shape&);

}  // namespace topos::init
