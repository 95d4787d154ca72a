// The floating-point operations of a training step's products, counted as
// model FLOPs usually are: a multiply-add of the forward pass's matrix
// products and convolutions is two operations, and the backward pass makes two
// products of the same size for each (the gradient of its input and of its
// weights), so a step counts three times its forward products. Elementwise
// operations, normalisations, softmax and the optimizer are not counted; nor is
// what a program skips (the first layer's input gradient, the masked half of
// causal scores), so that every program is credited with the same work.
#pragma once

#include <cstddef>
#include <initializer_list>

namespace flops {

// A [rows, inner] by [inner, columns] product.
inline double product(std::size_t rows, std::size_t inner, std::size_t columns) {
    return 2.0 * static_cast<double>(rows) * static_cast<double>(inner) *
           static_cast<double>(columns);
}

// A stack of linear layers of these widths (input first) over a batch.
inline double linear_layers(std::size_t batch, std::initializer_list<std::size_t> widths) {
    double total = 0;
    for (const std::size_t* width = widths.begin(); width + 1 < widths.end(); ++width) {
        total += product(batch, width[0], width[1]);
    }
    return total;
}

// A convolution of `kernel` x `kernel` filters that makes `out_channels`
// planes of `height` x `width` from `in_channels`, over a batch.
inline double convolution(std::size_t batch,
                          std::size_t in_channels,
                          std::size_t out_channels,
                          std::size_t kernel,
                          std::size_t height,
                          std::size_t width) {
    return product(batch * height * width, in_channels * kernel * kernel, out_channels);
}

// Multi-head self-attention's two products over every pair of positions (the
// scores and the weighted sum of values), all heads together.
inline double attention(std::size_t batch, std::size_t sequence, std::size_t width) {
    return 2 * product(batch * sequence, width, sequence);
}

// A pre-norm transformer block: the query/key/value and output projections,
// attention, and an MLP of `hidden` units, over batch x sequence tokens.
inline double transformer_block(std::size_t batch,
                                std::size_t sequence,
                                std::size_t width,
                                std::size_t hidden) {
    const std::size_t tokens = batch * sequence;
    return product(tokens, width, 4 * width) + attention(batch, sequence, width) +
           2 * product(tokens, width, hidden);
}

// A training step whose forward products cost `forward`.
inline double training_step(double forward) {
    return 3 * forward;
}

}  // namespace flops
