// TransformerBlock<T>: the pre-norm block of GPT-2 style decoders,
//   h = x + attention(norm1(x))
//   y = h + mlp(norm2(h))
// with causal multi-head self-attention and a two-layer GELU MLP of `hidden`
// units. x and y are [batch, sequence, width].
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/attention.hpp>
#include <topos/model/layer_norm.hpp>
#include <topos/model/mlp.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class TransformerBlock {
public:
    // Throws ShapeError unless `heads` divides `width`.
    template <class Initialiser>
    TransformerBlock(Tape<T>& tape,
                     std::size_t width,
                     std::size_t heads,
                     std::size_t hidden,
                     Initialiser&& weight_init)
        : norm1_(tape, width),
          attention_(tape, width, heads, weight_init),
          norm2_(tape, width),
          mlp_(tape, {width, hidden, width}, Activation::Gelu, weight_init) {}

    // h = x + attention(norm1(x)), then h + mlp(norm2(h)), each [batch, sequence, width].
    Value<T> express(const Value<T>& x) const;

    // norm1, attention, norm2, mlp: each module's parameters in its own order.
    std::vector<Value<T>> parameters() const;

    // "norm1.", "attention.", "norm2." and "mlp." before each part's own names.
    std::vector<NamedParameter> named_parameters() const {
        return topos::named_parameters(
            {{"norm1", norm1_}, {"attention", attention_}, {"norm2", norm2_}, {"mlp", mlp_}});
    }

    // The norm before the attention.
    const LayerNorm<T>& norm1() const { return norm1_; }

    // The causal multi-head self-attention.
    const CausalSelfAttention<T>& attention() const { return attention_; }

    // The norm before the MLP.
    const LayerNorm<T>& norm2() const { return norm2_; }

    // The two-layer GELU MLP, width -> hidden -> width.
    const Mlp<T>& mlp() const { return mlp_; }

    // "TransformerBlock (pre-norm)", then each part's lines, indented.
    std::string describe() const;

private:
    LayerNorm<T> norm1_;
    CausalSelfAttention<T> attention_;
    LayerNorm<T> norm2_;
    Mlp<T> mlp_;
};

extern template class TransformerBlock<float>;
extern template class TransformerBlock<double>;
extern template class TransformerBlock<bf16>;

}  // namespace topos
