// SwiGluMlp<T>: Llama's gated feed-forward layer,
//   y = (silu(x Wgate) * (x Wup)) Wdown
// with Wgate and Wup [width, intermediate], Wdown [intermediate, width], and
// no biases (Hugging Face's LlamaMLP).
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/linear.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class SwiGluMlp {
public:
    // Gate, up and down weights drawn in turn from `weight_init`.
    template <class Initialiser>
    SwiGluMlp(Tape<T>& tape, std::size_t width, std::size_t intermediate, Initialiser&& weight_init)
        : gate_(tape, width, intermediate, weight_init, Bias::None),
          up_(tape, width, intermediate, weight_init, Bias::None),
          down_(tape, intermediate, width, weight_init, Bias::None) {}

    // x [..., width] to [..., width].
    Value<T> express(const Value<T>& x) const;

    // The gate, up and down weights.
    std::vector<Value<T>> parameters() const {
        return {gate_.weight(), up_.weight(), down_.weight()};
    }

    // "gate_proj.weight", "up_proj.weight", "down_proj.weight", as LlamaMLP names them.
    std::vector<NamedParameter> named_parameters() const {
        return topos::named_parameters(
            {{"gate_proj", gate_}, {"up_proj", up_}, {"down_proj", down_}});
    }

    // The gate projection, [width, intermediate].
    const Linear<T>& gate() const { return gate_; }

    // The up projection, [width, intermediate].
    const Linear<T>& up() const { return up_; }

    // The down projection, [intermediate, width].
    const Linear<T>& down() const { return down_; }

    // "SwiGluMlp(width -> intermediate -> width)", then a line per projection.
    std::string describe() const;

private:
    Linear<T> gate_;
    Linear<T> up_;
    Linear<T> down_;
};

extern template class SwiGluMlp<float>;
extern template class SwiGluMlp<double>;
extern template class SwiGluMlp<bf16>;

}  // namespace topos
