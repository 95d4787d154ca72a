// Recorded compositions: convolution, pooling and batch normalisation written
// with catalog operations only. Nothing here is a new opcode; the pattern
// catalog recognises the structures these functions record (and the same
// structures written by hand) and a plan may serve them with fused kernels.
#pragma once

#include <topos/graph/value.hpp>

#include <cstddef>

namespace topos {

// A 2-D convolution of an NCHW image [N, C, H, W] by OIHW filters [O, C, KH, KW]
// plus a bias [O]: the image is zero-padded by `padding` on each side of H and
// W, unfolded into windows (`stride` apart, taps `dilation` apart), and the
// windows' [N*OH*OW, C*KH*KW] matrix multiplies the filters' [C*KH*KW, O]
// matrix. The result is [N, O, OH, OW] with OH = (H + 2 padding - dilation
// (KH - 1) - 1) / stride + 1, and OW likewise.
template <Element T>
Value<T> conv2d(const Value<T>& image,
                const Value<T>& filters,
                const Value<T>& bias,
                std::size_t stride = 1,
                std::size_t padding = 0,
                std::size_t dilation = 1);

// The maximum of each `size` x `size` window of an NCHW input, windows `stride`
// apart: [N, C, (H - size) / stride + 1, (W - size) / stride + 1]. The window's
// elements are compared left to right in row-major order.
template <Element T>
Value<T> max_pool(const Value<T>& input, std::size_t size, std::size_t stride);

// The mean of each window, as max_pool's windows summed left to right and
// divided by size * size.
template <Element T>
Value<T> average_pool(const Value<T>& input, std::size_t size, std::size_t stride);

// Batch normalisation of an [N, C, ...] input over every axis but the channel
// axis 1, with a scale `gamma` [C] and a shift `beta` [C]:
//   y = (x - mean) * (rsqrt(variance + epsilon) * gamma) + beta
template <Element T>
struct BatchNormTraining {
    Value<T> output;
    Value<T> mean;      // [C], the batch mean (training formula)
    Value<T> variance;  // [C], the biased batch variance (training formula)
};

// The training formula: the statistics are the batch's own. Observe `mean` and
// `variance` to update running statistics; the fused kernel writes them back.
template <Element T>
BatchNormTraining<T> batch_norm_training(const Value<T>& input,
                                         const Value<T>& gamma,
                                         const Value<T>& beta,
                                         double epsilon = 1e-5);

// The inference formula: the statistics are given (running averages the caller
// owns, fed as inputs).
template <Element T>
Value<T> batch_norm_inference(const Value<T>& input,
                              const Value<T>& gamma,
                              const Value<T>& beta,
                              const Value<T>& running_mean,
                              const Value<T>& running_variance,
                              double epsilon = 1e-5);

}  // namespace topos
