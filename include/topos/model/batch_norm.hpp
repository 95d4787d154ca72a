// BatchNorm<T>: batch normalisation of an [N, C, ...] input over every axis but
// the channels, with a scale `gamma` [C] (ones) and a shift `beta` [C] (zeros),
// as torch.nn.BatchNorm1d/2d:
//   training:  y = (x - batch mean) / sqrt(biased batch variance + epsilon) * gamma + beta
//   inference: y = (x - running mean) / sqrt(running variance + epsilon) * gamma + beta
// The running statistics are state the caller owns, as an optimizer's state
// is: `training(x)` exposes the batch mean and variance as values to observe,
// `update(running, mean, variance, count)` is the pure running-average step,
// and `inference(x, statistics)` reads running statistics fed as inputs.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/compositions.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

// Running averages of the per-channel mean and (unbiased) variance.
template <Element T>
struct RunningStatistics {
    Tensor<T> mean;      // [C]
    Tensor<T> variance;  // [C]
};

// Inputs of a tape that carry running statistics into an inference formula.
template <Element T>
struct StatisticsInputs {
    Value<T> mean;
    Value<T> variance;
};

template <Element T>
class BatchNorm {
public:
    // Throws ShapeError when `channels` is 0, epsilon is not positive or the
    // momentum is outside [0, 1].
    BatchNorm(Tape<T>& tape, std::size_t channels, double epsilon = 1e-5, double momentum = 0.1);

    // The training formula's output (the Module protocol).
    Value<T> express(const Value<T>& x) const { return training(x).output; }

    // The training formula with its batch statistics, [C] each.
    BatchNormTraining<T> training(const Value<T>& x) const;

    // Two inputs of `tape` for the running statistics, defaults start().
    StatisticsInputs<T> statistics_inputs(Tape<T>& tape) const;

    // The inference formula over running statistics.
    Value<T> inference(const Value<T>& x, const StatisticsInputs<T>& statistics) const;

    // PyTorch's initial running statistics: mean zeros, variance ones.
    RunningStatistics<T> start() const;

    // One running-average step, as torch.nn.BatchNorm in training mode:
    //   mean'     = (1 - momentum) mean     + momentum batch_mean
    //   variance' = (1 - momentum) variance + momentum batch_variance * count / (count - 1)
    // `batch_variance` is the biased variance the training formula computes,
    // over `count` elements per channel (N * H * W); it is made unbiased here.
    // Throws ShapeError when a shape is not [C] or count < 2.
    RunningStatistics<T> update(const RunningStatistics<T>& running,
                                const Tensor<T>& batch_mean,
                                const Tensor<T>& batch_variance,
                                std::size_t count) const;

    // gamma, then beta.
    std::vector<Value<T>> parameters() const { return {gamma_, beta_}; }

    // "weight" (gamma) and "bias" (beta), as torch.nn.BatchNorm names them; the
    // running statistics are the caller's state, not parameters.
    std::vector<NamedParameter> named_parameters() const {
        return {{"weight", gamma_}, {"bias", beta_}};
    }

    // The scale, [C], initially ones.
    const Value<T>& gamma() const { return gamma_; }

    // The shift, [C], initially zeros.
    const Value<T>& beta() const { return beta_; }

    // "BatchNorm(C, epsilon e, momentum m)", then gamma's and beta's shapes and nodes.
    std::string describe() const;

private:
    std::size_t channels_;
    double epsilon_;
    double momentum_;
    Value<T> gamma_;
    Value<T> beta_;
};

// Elements per channel of an [N, C, ...] input: what update() calls `count`.
std::size_t elements_per_channel(const Shape& input);

extern template class BatchNorm<float>;
extern template class BatchNorm<double>;
extern template class BatchNorm<bf16>;

}  // namespace topos
