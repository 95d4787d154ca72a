// RmsNorm<T>: scales the last axis of its input by the reciprocal of its root
// mean square, then by `weight` ([features], initially ones):
// y = x * rsqrt(mean(x^2) + epsilon) * weight, as Llama's LlamaRMSNorm and
// torch.nn.RMSNorm. Recorded from Square, Mean, Add, Rsqrt and Mul nodes.
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/init.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class RmsNorm {
public:
    // Throws ShapeError when `features` is 0 or epsilon is not positive.
    RmsNorm(Tape<T>& tape, std::size_t features, double epsilon = 1e-6);

    // The weight from `weight_init` instead of ones (a checkpoint's, say).
    template <class Initialiser>
    RmsNorm(Tape<T>& tape, std::size_t features, double epsilon, Initialiser&& weight_init)
        : features_(checked(features, epsilon)),
          epsilon_(epsilon),
          weight_(tape.parameter(weight_init.template make<T>(Shape{features}))) {}

    // x of any rank >= 1 whose last axis has `features` elements (ShapeError otherwise).
    Value<T> express(const Value<T>& x) const;

    // The weight.
    std::vector<Value<T>> parameters() const { return {weight_}; }

    // "weight", as Hugging Face's LlamaRMSNorm and torch.nn.RMSNorm name it.
    std::vector<NamedParameter> named_parameters() const { return {{"weight", weight_}}; }

    // The weight, [features], initially ones.
    const Value<T>& weight() const { return weight_; }

    // The epsilon added to the mean square.
    double epsilon() const { return epsilon_; }

    // "RmsNorm(features, epsilon e): weight [features] at node i".
    std::string describe() const;

private:
    static std::size_t checked(std::size_t features, double epsilon);

    std::size_t features_;
    double epsilon_;
    Value<T> weight_;
};

extern template class RmsNorm<float>;
extern template class RmsNorm<double>;
extern template class RmsNorm<bf16>;

}  // namespace topos
