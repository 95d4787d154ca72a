// The initialisers' splitmix64 stream and what each draws from it.
#include "core/exact_math.hpp"
#include <topos/core/error.hpp>
#include <topos/model/init.hpp>

#include <cmath>
#include <numbers>
#include <span>
#include <string>

namespace topos::init {
namespace {

constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;

std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct Fans {
    double in;
    double out;
};

// Rank 2 is [in, out]; rank >= 3 is [out, in, kernel...]. Rank 0 and 1 have no fans.
Fans fans_of(const Shape& shape) {
    if (shape.rank() == 2) {
        return {static_cast<double>(shape[0]), static_cast<double>(shape[1])};
    }
    double receptive = 1;
    for (std::size_t axis = 2; axis < shape.rank(); ++axis) {
        receptive *= static_cast<double>(shape[axis]);
    }
    return {static_cast<double>(shape[1]) * receptive, static_cast<double>(shape[0]) * receptive};
}

// Each element in turn, row-major, from draw_one(), rounded once to T.
template <Element T, class Draw>
Tensor<T> drawn(const Shape& shape, Draw draw_one) {
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        for (T& element : out) {
            element = static_cast<T>(draw_one());
        }
    });
}

// What `initialiser` makes at `shape` from its present state; then its
// stream moves past the `draws` that making it takes.
template <class Initialiser>
Made<Initialiser> made_then_skipped(const Initialiser& initialiser,
                                    Stream& stream,
                                    const Shape& shape,
                                    std::uint64_t draws) {
    Made<Initialiser> made(initialiser, shape);
    stream.skip(draws);
    return made;
}

}  // namespace

std::uint64_t Stream::bits() {
    state_ += golden_gamma;
    return mix(state_);
}

double Stream::unit() {
    return static_cast<double>(bits() >> 11) * 0x1p-53;
}

double Stream::standard_normal() {
    const double radius = std::sqrt(-2.0 * exact::log(1.0 - unit()));
    const double angle = 2.0 * std::numbers::pi * unit();
    return radius * exact::cos(angle);
}

std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t counter) {
    return mix(mix(seed) + counter * golden_gamma);
}

template <Element T>
Tensor<T> Uniform::make(const Shape& shape) {
    return drawn<T>(shape, [&] { return low_ + (high_ - low_) * stream_.unit(); });
}

Made<Uniform> Uniform::operator()(const Shape& shape) {
    return made_then_skipped(*this, stream_, shape, shape.elements());
}

template <Element T>
Tensor<T> Normal::make(const Shape& shape) {
    return drawn<T>(shape, [&] { return stream_.standard_normal() * stddev_; });
}

Made<Normal> Normal::operator()(const Shape& shape) {
    return made_then_skipped(*this, stream_, shape, 2 * shape.elements());
}

template <Element T>
Tensor<T> Scaled::make(const Shape& shape) {
    if (scaling_ == Scaling::Zeros || shape.rank() == 1) {
        return Tensor<T>::filled(shape, T{0});
    }
    check_rank(shape);
    const Fans fans = fans_of(shape);
    if (scaling_ == Scaling::Xavier) {
        const double bound = std::sqrt(6.0 / (fans.in + fans.out));
        return drawn<T>(shape, [&] { return (stream_.unit() * 2.0 - 1.0) * bound; });
    }
    const double deviation = std::sqrt(2.0 / fans.in);
    return drawn<T>(shape, [&] { return stream_.standard_normal() * deviation; });
}

Made<Scaled> Scaled::operator()(const Shape& shape) {
    return made_then_skipped(*this, stream_, shape, draws(shape));
}

std::uint64_t Scaled::draws(const Shape& shape) const {
    if (scaling_ == Scaling::Zeros || shape.rank() == 1) {
        return 0;
    }
    check_rank(shape);
    return scaling_ == Scaling::Xavier ? shape.elements() : 2 * shape.elements();
}

void Scaled::check_rank(const Shape& shape) const {
    if (shape.rank() == 0) {
        throw ShapeError(std::string(scaling_ == Scaling::Xavier ? "xavier" : "kaiming") +
                         " scales a weight by its fans, of rank 2 ([in, out]) or more ([out, in, "
                         "kernel...]), or zeros a rank-1 bias; got the scalar shape []");
    }
}

DropoutMask::DropoutMask(std::uint64_t seed, double keep) : stream_(seed), keep_(keep) {
    if (!(keep > 0 && keep <= 1)) {
        throw ShapeError("a dropout mask keeps each element with a probability in (0, 1]; got " +
                         std::to_string(keep));
    }
}

template <Element T>
Tensor<T> DropoutMask::make(const Shape& shape) {
    const double kept = 1.0 / keep_;
    return drawn<T>(shape, [&] { return stream_.unit() < keep_ ? kept : 0.0; });
}

Made<DropoutMask> DropoutMask::operator()(const Shape& shape) {
    return made_then_skipped(*this, stream_, shape, shape.elements());
}

template Tensor<float> Uniform::make<float>(const Shape&);
template Tensor<double> Uniform::make<double>(const Shape&);
template Tensor<bf16> Uniform::make<bf16>(const Shape&);
template Tensor<float> Normal::make<float>(const Shape&);
template Tensor<double> Normal::make<double>(const Shape&);
template Tensor<bf16> Normal::make<bf16>(const Shape&);
template Tensor<float> Scaled::make<float>(const Shape&);
template Tensor<double> Scaled::make<double>(const Shape&);
template Tensor<bf16> Scaled::make<bf16>(const Shape&);
template Tensor<float> DropoutMask::make<float>(const Shape&);
template Tensor<double> DropoutMask::make<double>(const Shape&);
template Tensor<bf16> DropoutMask::make<bf16>(const Shape&);

}  // namespace topos::init
