// Linear<T>: y = x w + b over a batch of rows, x of shape [batch, in], or
// y = x w without a bias (Bias::None, as torch.nn.Linear(bias=False)). A
// module: express(x) records the forward on x's tape, parameters() lists the
// trainable values, describe() says what it holds.
#pragma once

#include <topos/graph/scope.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/init.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace topos {

// Whether a Linear layer adds a bias: zeros at first, or none at all.
enum class Bias : bool {
    None,
    Zeros
};

template <Element T>
class Linear {
public:
    // Weight [in, out] from `weight_init`; bias [out] zeros, or none.
    template <class Initialiser>
    Linear(Tape<T>& tape,
           std::size_t in,
           std::size_t out,
           Initialiser&& weight_init,
           Bias bias = Bias::Zeros)
        : weight_(tape.parameter(weight_init.template make<T>(Shape{in, out}))) {
        if (bias == Bias::Zeros) {
            bias_.emplace(tape.parameter(Tensor<T>::filled(Shape{out}, T{0})));
        }
    }

    // x w + b (or x w): x [..., in] to [..., out].
    Value<T> express(const Value<T>& x) const {
        const NameScope named("Linear");
        const Value<T> product = x.matmul(weight_);
        return bias_ ? product + *bias_ : product;
    }

    // weight, then bias where there is one.
    std::vector<Value<T>> parameters() const {
        if (bias_) {
            return {weight_, *bias_};
        }
        return {weight_};
    }

    // "weight" (PyTorch holds its transpose, [out, in]) and "bias" where there is one.
    std::vector<NamedParameter> named_parameters() const {
        if (bias_) {
            return {{"weight", weight_, true}, {"bias", *bias_}};
        }
        return {{"weight", weight_, true}};
    }

    // The weight, [in, out].
    const Value<T>& weight() const { return weight_; }

    // Whether the layer adds a bias.
    bool has_bias() const { return bias_.has_value(); }

    // The bias, [out]; throws Error for a layer built with Bias::None.
    const Value<T>& bias() const;

    // "Linear(in -> out): weight [in, out] at node i, bias [out] at node j"
    // (or ", no bias").
    std::string describe() const;

private:
    Value<T> weight_;
    std::optional<Value<T>> bias_;
};

extern template class Linear<float>;
extern template class Linear<double>;
extern template class Linear<bf16>;

}  // namespace topos
