// RotaryEmbedding: rotary position embeddings in the Hugging Face convention
// (LlamaRotaryEmbedding and rotate_half). A head of width d splits into halves,
// and element i of the first half turns with element i of the second by the
// angle position * theta^(-2i/d):
//   rotated = x * cos + rotate_half(x) * sin,  rotate_half(x) = concat(-x[d/2:], x[:d/2])
// with cos and sin tables of [positions, d] whose two halves repeat.
//
// The angles are Hugging Face's float32 ones: each inverse frequency
// 1 / theta^(2i/d) and each product position * frequency rounded to float as
// it computes them. Their cosines and sines are then rounded to the element
// type, so a float model's tables are the ones a PyTorch Llama uses.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/value.hpp>

#include <cstddef>
#include <string>

namespace topos {

// The cosines and sines of a run of positions, each [positions, head width].
template <Element T>
struct RotaryTables {
    Tensor<T> cos;
    Tensor<T> sin;
};

class RotaryEmbedding {
public:
    // Throws ShapeError unless `head_width` is even and positive and theta > 1.
    explicit RotaryEmbedding(std::size_t head_width, double theta = 10000.0);

    // The tables of positions first .. first + count - 1.
    template <Element T>
    RotaryTables<T> tables(std::size_t first, std::size_t count) const;

    // x [..., positions, head width] rotated by `cos` and `sin` ([positions,
    // head width], from tables()). Throws ShapeError for other shapes.
    template <Element T>
    Value<T> apply(const Value<T>& x, const Value<T>& cos, const Value<T>& sin) const;

    // The width of a head, d.
    std::size_t head_width() const { return head_width_; }

    // The base of the frequencies.
    double theta() const { return theta_; }

    // "RotaryEmbedding(head width d, theta t)".
    std::string describe() const;

private:
    std::size_t head_width_;
    double theta_;
};

extern template RotaryTables<float> RotaryEmbedding::tables<float>(std::size_t, std::size_t) const;
extern template RotaryTables<double> RotaryEmbedding::tables<double>(std::size_t,
                                                                     std::size_t) const;
extern template RotaryTables<bf16> RotaryEmbedding::tables<bf16>(std::size_t, std::size_t) const;
extern template Value<float> RotaryEmbedding::apply(const Value<float>&,
                                                    const Value<float>&,
                                                    const Value<float>&) const;
extern template Value<double> RotaryEmbedding::apply(const Value<double>&,
                                                     const Value<double>&,
                                                     const Value<double>&) const;
extern template Value<bf16> RotaryEmbedding::apply(const Value<bf16>&,
                                                   const Value<bf16>&,
                                                   const Value<bf16>&) const;

}  // namespace topos
