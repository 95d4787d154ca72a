// LayerNorm: a gain of ones and a shift of zeros as parameters, and express()
// recorded as (x - mean) * rsqrt(variance + epsilon) * gain + shift over the
// last axis, the variance biased as in PyTorch.
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/layer_norm.hpp>

#include <sstream>

namespace topos {

template <Element T>
LayerNorm<T>::LayerNorm(Tape<T>& tape, std::size_t features, double epsilon)
    : features_(features),
      epsilon_(epsilon),
      gain_(tape.parameter(Tensor<T>::filled(Shape{features}, T{1}))),
      shift_(tape.parameter(Tensor<T>::filled(Shape{features}, T{0}))) {
    if (features == 0 || !(epsilon > 0)) {
        throw ShapeError("a LayerNorm needs at least one feature and a positive epsilon; got " +
                         std::to_string(features) + " features and epsilon " +
                         std::to_string(epsilon));
    }
}

template <Element T>
Value<T> LayerNorm<T>::express(const Value<T>& x) const {
    const detail::RecordScope scope(x);
    const NameScope named("LayerNorm");
    const Shape shape = x.shape();
    if (shape.rank() == 0 || shape[shape.rank() - 1] != features_) {
        throw ShapeError("LayerNorm(" + std::to_string(features_) + ") normalises a last axis of " +
                         std::to_string(features_) + " features; node " +
                         std::to_string(x.index()) + " has shape " + shape.str() +
                         " (reshape it so the features come last)");
    }
    const Axes last{shape.rank() - 1};
    const Value<T> centered = x - x.mean(last, true);
    const Value<T> variance = centered.square().mean(last, true);
    const Value<T> normalised = centered * (variance + static_cast<T>(epsilon_)).rsqrt();
    return normalised * gain_ + shift_;
}

template <Element T>
std::string LayerNorm<T>::describe() const {
    std::ostringstream out;
    out << "LayerNorm(" << features_ << ", epsilon " << epsilon_ << "): gain " << gain_.shape()
        << " at node " << gain_.index() << ", shift " << shift_.shape() << " at node "
        << shift_.index();
    return out.str();
}

template class LayerNorm<float>;
template class LayerNorm<double>;
template class LayerNorm<bf16>;

}  // namespace topos
