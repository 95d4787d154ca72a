#include "core/exact_math.hpp"
#include <topos/model/init.hpp>

#include <cmath>
#include <numbers>
#include <span>

namespace topos::init {
namespace {

std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// In [0, 1), with 53 random bits.
double unit(std::uint64_t seed, std::uint64_t counter) {
    return static_cast<double>(counter_bits(seed, counter) >> 11) * 0x1p-53;
}

// Element i of a standard normal sequence: Box-Muller over the pair i / 2.
double standard_normal(std::uint64_t seed, std::uint64_t i) {
    const std::uint64_t pair = i / 2;
    const double u1 = 1.0 - unit(seed, 2 * pair);  // in (0, 1]: log stays finite
    const double u2 = unit(seed, 2 * pair + 1);
    const double radius = std::sqrt(-2.0 * exact::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    return radius * (i % 2 == 0 ? exact::cos(angle) : exact::sin(angle));
}

struct Fans {
    double in;
    double out;
};

Fans fans_of(const Shape& shape) {
    if (shape.rank() == 0) {
        return {1, 1};
    }
    if (shape.rank() == 1) {
        return {static_cast<double>(shape[0]), static_cast<double>(shape[0])};
    }
    if (shape.rank() == 2) {
        return {static_cast<double>(shape[0]), static_cast<double>(shape[1])};
    }
    double receptive = 1;
    for (std::size_t axis = 2; axis < shape.rank(); ++axis) {
        receptive *= static_cast<double>(shape[axis]);
    }
    return {static_cast<double>(shape[1]) * receptive, static_cast<double>(shape[0]) * receptive};
}

template <Element T, class Draw>
Tensor<T> draw(const Shape& shape, Draw draw_one) {
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = static_cast<T>(draw_one(i));
        }
    });
}

}  // namespace

std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t counter) {
    return mix(mix(seed) + counter * 0x9e3779b97f4a7c15ULL);
}

template <Element T>
Tensor<T> Uniform::make(const Shape& shape) const {
    return draw<T>(shape, [&](std::size_t i) { return low_ + (high_ - low_) * unit(seed_, i); });
}

template <Element T>
Tensor<T> Normal::make(const Shape& shape) const {
    return draw<T>(shape, [&](std::size_t i) { return stddev_ * standard_normal(seed_, i); });
}

template <Element T>
Tensor<T> Scaled::make(const Shape& shape) const {
    const Fans fans = fans_of(shape);
    switch (scaling_) {
        case Scaling::Xavier: {
            const double limit = std::sqrt(6.0 / (fans.in + fans.out));
            return Uniform(seed_, -limit, limit).make<T>(shape);
        }
        case Scaling::Kaiming:
            return Normal(seed_, std::sqrt(2.0 / fans.in)).make<T>(shape);
        case Scaling::Zeros:
            break;
    }
    return Tensor<T>::filled(shape, T{0});
}

template Tensor<float> Uniform::make<float>(const Shape&) const;
template Tensor<double> Uniform::make<double>(const Shape&) const;
template Tensor<float> Normal::make<float>(const Shape&) const;
template Tensor<double> Normal::make<double>(const Shape&) const;
template Tensor<float> Scaled::make<float>(const Shape&) const;
template Tensor<double> Scaled::make<double>(const Shape&) const;

}  // namespace topos::init
