// RmsNorm: its sizes checked, a weight of ones, and express() recorded as
// x * rsqrt(mean(x^2) + epsilon) * weight over the last axis.
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/rms_norm.hpp>

#include <sstream>

namespace topos {

template <Element T>
std::size_t RmsNorm<T>::checked(std::size_t features, double epsilon) {
    if (features == 0 || !(epsilon > 0)) {
        throw ShapeError("an RmsNorm needs at least one feature and a positive epsilon; got " +
                         std::to_string(features) + " features and epsilon " +
                         std::to_string(epsilon));
    }
    return features;
}

template <Element T>
RmsNorm<T>::RmsNorm(Tape<T>& tape, std::size_t features, double epsilon)
    : features_(checked(features, epsilon)),
      epsilon_(epsilon),
      weight_(tape.parameter(Tensor<T>::filled(Shape{features}, T{1}))) {}

template <Element T>
Value<T> RmsNorm<T>::express(const Value<T>& x) const {
    const detail::RecordScope scope(x);
    const NameScope named("RmsNorm");
    const Shape shape = x.shape();
    if (shape.rank() == 0 || shape[shape.rank() - 1] != features_) {
        throw ShapeError("RmsNorm(" + std::to_string(features_) + ") normalises a last axis of " +
                         std::to_string(features_) + " features; node " +
                         std::to_string(x.index()) + " has shape " + shape.str() +
                         " (reshape it so the features come last)");
    }
    const Value<T> mean_square = x.square().mean(Axes{shape.rank() - 1}, true);
    return x * (mean_square + static_cast<T>(epsilon_)).rsqrt() * weight_;
}

template <Element T>
std::string RmsNorm<T>::describe() const {
    std::ostringstream out;
    out << "RmsNorm(" << features_ << ", epsilon " << epsilon_ << "): weight " << weight_.shape()
        << " at node " << weight_.index();
    return out.str();
}

template class RmsNorm<float>;
template class RmsNorm<double>;
template class RmsNorm<bf16>;

}  // namespace topos
