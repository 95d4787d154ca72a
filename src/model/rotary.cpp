// RotaryEmbedding: the tables from Hugging Face's float32 angles, and the
// rotation recorded as x * cos + concat(-x[d/2:], x[:d/2]) * sin.
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/rotary.hpp>

#include <cmath>
#include <span>
#include <sstream>
#include <vector>

namespace topos {

RotaryEmbedding::RotaryEmbedding(std::size_t head_width, double theta)
    : head_width_(head_width), theta_(theta) {
    if (head_width == 0 || head_width % 2 != 0 || !(theta > 1)) {
        throw ShapeError(
            "rotary embeddings turn pairs of a head's elements by angles theta^(-2i/d): they need "
            "an even, positive head width and a theta above 1; got head width " +
            std::to_string(head_width) + " and theta " + std::to_string(theta));
    }
}

namespace {

// 1 / theta^(2i / d) for i < d / 2, each step rounded to float as Hugging
// Face's float32 computation rounds it.
std::vector<float> inverse_frequencies(std::size_t head_width, double theta) {
    std::vector<float> frequencies(head_width / 2);
    for (std::size_t i = 0; i < frequencies.size(); ++i) {
        const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_width);
        const auto power = static_cast<float>(std::pow(theta, static_cast<double>(exponent)));
        frequencies[i] = 1.0F / power;
    }
    return frequencies;
}

}  // namespace

template <Element T>
RotaryTables<T> RotaryEmbedding::tables(std::size_t first, std::size_t count) const {
    const std::vector<float> frequencies = inverse_frequencies(head_width_, theta_);
    const std::size_t half = head_width_ / 2;
    std::vector<float> cosines(count * head_width_);
    std::vector<float> sines(count * head_width_);
    for (std::size_t p = 0; p < count; ++p) {
        const auto position = static_cast<float>(first + p);
        for (std::size_t i = 0; i < half; ++i) {
            const auto angle = static_cast<double>(position * frequencies[i]);
            for (const std::size_t column : {i, i + half}) {
                cosines[p * head_width_ + column] = static_cast<float>(std::cos(angle));
                sines[p * head_width_ + column] = static_cast<float>(std::sin(angle));
            }
        }
    }
    const Shape shape{count, head_width_};
    return {Tensor<float>(shape, cosines).convert<T>(), Tensor<float>(shape, sines).convert<T>()};
}

template <Element T>
Value<T> RotaryEmbedding::apply(const Value<T>& x, const Value<T>& cos, const Value<T>& sin) const {
    const detail::RecordScope scope(x);
    const NameScope named("RotaryEmbedding");
    const Shape shape = x.shape();
    const std::size_t rank = shape.rank();
    const bool fits = rank >= 2 && shape[rank - 1] == head_width_ &&
                      cos.shape() == Shape{shape[rank - 2], head_width_} &&
                      sin.shape() == cos.shape();
    if (!fits) {
        throw ShapeError("a rotary embedding of head width " + std::to_string(head_width_) +
                         " rotates x [..., positions, " + std::to_string(head_width_) +
                         "] by cos and sin [positions, " + std::to_string(head_width_) +
                         "]; got x " + shape.str() + ", cos " + cos.shape().str() + ", sin " +
                         sin.shape().str());
    }
    const std::size_t half = head_width_ / 2;
    const Value<T> rotated_half =
        concat<T>({-x.narrow(rank - 1, half, half), x.narrow(rank - 1, 0, half)}, rank - 1);
    return x * cos + rotated_half * sin;
}

std::string RotaryEmbedding::describe() const {
    std::ostringstream out;
    out << "RotaryEmbedding(head width " << head_width_ << ", theta " << theta_ << ")";
    return out.str();
}

template RotaryTables<float> RotaryEmbedding::tables<float>(std::size_t, std::size_t) const;
template RotaryTables<double> RotaryEmbedding::tables<double>(std::size_t, std::size_t) const;
template RotaryTables<bf16> RotaryEmbedding::tables<bf16>(std::size_t, std::size_t) const;
template Value<float> RotaryEmbedding::apply(const Value<float>&,
                                             const Value<float>&,
                                             const Value<float>&) const;
template Value<double> RotaryEmbedding::apply(const Value<double>&,
                                              const Value<double>&,
                                              const Value<double>&) const;
template Value<bf16> RotaryEmbedding::apply(const Value<bf16>&,
                                            const Value<bf16>&,
                                            const Value<bf16>&) const;

}  // namespace topos
