// BatchNorm: gamma and beta as parameters, the training and inference
// recordings (compositions.hpp's batch norm), and the running statistics
// updated outside the graph, per channel in double, the variance with
// Bessel's correction.
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/batch_norm.hpp>

#include <sstream>

namespace topos {

template <Element T>
BatchNorm<T>::BatchNorm(Tape<T>& tape, std::size_t channels, double epsilon, double momentum)
    : channels_(channels),
      epsilon_(epsilon),
      momentum_(momentum),
      gamma_(tape.parameter(Tensor<T>::filled(Shape{channels}, T{1}))),
      beta_(tape.parameter(Tensor<T>::filled(Shape{channels}, T{0}))) {
    if (channels == 0 || !(epsilon > 0) || !(momentum >= 0 && momentum <= 1)) {
        throw ShapeError(
            "a BatchNorm needs at least one channel, a positive epsilon and a "
            "momentum in [0, 1]; got " +
            std::to_string(channels) + " channels, epsilon " + std::to_string(epsilon) +
            ", momentum " + std::to_string(momentum));
    }
}

template <Element T>
BatchNormTraining<T> BatchNorm<T>::training(const Value<T>& x) const {
    const NameScope named("BatchNorm");
    return batch_norm_training(x, gamma_, beta_, epsilon_);
}

template <Element T>
StatisticsInputs<T> BatchNorm<T>::statistics_inputs(Tape<T>& tape) const {
    const RunningStatistics<T> initial = start();
    return {tape.input(initial.mean), tape.input(initial.variance)};
}

template <Element T>
Value<T> BatchNorm<T>::inference(const Value<T>& x, const StatisticsInputs<T>& statistics) const {
    const NameScope named("BatchNorm");
    return batch_norm_inference(x, gamma_, beta_, statistics.mean, statistics.variance, epsilon_);
}

template <Element T>
RunningStatistics<T> BatchNorm<T>::start() const {
    return {Tensor<T>::filled(Shape{channels_}, T{0}), Tensor<T>::filled(Shape{channels_}, T{1})};
}

namespace {

// (1 - momentum) old + momentum fresh * correction, per channel, in double.
template <Element T>
Tensor<T> running_average(const Tensor<T>& old,
                          const Tensor<T>& fresh,
                          double momentum,
                          double correction) {
    return Tensor<T>::generate(old.shape(), [&](std::span<T> out) {
        for (std::size_t c = 0; c < out.size(); ++c) {
            out[c] = static_cast<T>((1 - momentum) * static_cast<double>(old.data()[c]) +
                                    momentum * static_cast<double>(fresh.data()[c]) * correction);
        }
    });
}

}  // namespace

template <Element T>
RunningStatistics<T> BatchNorm<T>::update(const RunningStatistics<T>& running,
                                          const Tensor<T>& batch_mean,
                                          const Tensor<T>& batch_variance,
                                          std::size_t count) const {
    const Shape channels{channels_};
    for (const Tensor<T>* tensor :
         {&running.mean, &running.variance, &batch_mean, &batch_variance}) {
        if (tensor->shape() != channels) {
            throw ShapeError("BatchNorm(" + std::to_string(channels_) +
                             ") updates statistics of shape " + channels.str() + "; got " +
                             tensor->shape().str());
        }
    }
    if (count < 2) {
        throw ShapeError("an unbiased variance needs at least 2 elements per channel; got " +
                         std::to_string(count));
    }
    const double bessel = static_cast<double>(count) / static_cast<double>(count - 1);
    return {running_average(running.mean, batch_mean, momentum_, 1.0),
            running_average(running.variance, batch_variance, momentum_, bessel)};
}

template <Element T>
std::string BatchNorm<T>::describe() const {
    std::ostringstream out;
    out << "BatchNorm(" << channels_ << ", epsilon " << epsilon_ << ", momentum " << momentum_
        << "): gamma " << gamma_.shape() << " at node " << gamma_.index() << ", beta "
        << beta_.shape() << " at node " << beta_.index();
    return out.str();
}

std::size_t elements_per_channel(const Shape& input) {
    if (input.rank() < 2) {
        throw ShapeError("batch normalisation reads [N, C, ...]; got shape " + input.str());
    }
    std::size_t count = 1;
    for (std::size_t axis = 0; axis < input.rank(); ++axis) {
        count *= axis == 1 ? 1 : input[axis];
    }
    return count;
}

template class BatchNorm<float>;
template class BatchNorm<double>;
template class BatchNorm<bf16>;

}  // namespace topos
