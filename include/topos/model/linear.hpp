// Linear<T>: y = x w + b over a batch of rows, x of shape [batch, in]. A module:
// express(x) records the forward on x's tape, parameters() lists the trainable
// values, describe() says what it holds.
#pragma once

#include <topos/graph/scope.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/init.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class Linear {
public:
    // Weight [in, out] from `weight_init`, bias [out] zeros.
    template <class Initialiser>
    Linear(Tape<T>& tape, std::size_t in, std::size_t out, Initialiser&& weight_init)
        : weight_(tape.parameter(weight_init.template make<T>(Shape{in, out}))),
          bias_(tape.parameter(Tensor<T>::filled(Shape{out}, T{0}))) {}

    // x w + b: x [..., in] to [..., out].
    Value<T> express(const Value<T>& x) const {
        const NameScope named("Linear");
        return x.matmul(weight_) + bias_;
    }

    // weight, then bias.
    std::vector<Value<T>> parameters() const { return {weight_, bias_}; }

    // "weight" (PyTorch holds its transpose, [out, in]) and "bias".
    std::vector<NamedParameter> named_parameters() const {
        return {{"weight", weight_, true}, {"bias", bias_}};
    }

    // The weight, [in, out].
    const Value<T>& weight() const { return weight_; }

    // The bias, [out].
    const Value<T>& bias() const { return bias_; }

    // "Linear(in -> out): weight [in, out] at node i, bias [out] at node j".
    std::string describe() const;

private:
    Value<T> weight_;
    Value<T> bias_;
};

extern template class Linear<float>;
extern template class Linear<double>;
extern template class Linear<bf16>;

}  // namespace topos
