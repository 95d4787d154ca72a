// LayerNorm<T>: normalises the last axis of its input to mean 0 and variance 1,
// then scales by `gain` and shifts by `shift` (both [features], initially ones
// and zeros): y = (x - mean) / sqrt(var + epsilon) * gain + shift, with the
// biased variance, as torch.nn.LayerNorm. Recorded from Mean, Sub, Square,
// Rsqrt, Mul and Add nodes.
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class LayerNorm {
public:
    // Throws ShapeError when `features` is 0 or epsilon is not positive.
    LayerNorm(Tape<T>& tape, std::size_t features, double epsilon = 1e-5);

    // x of any rank >= 1 whose last axis has `features` elements (ShapeError otherwise).
    Value<T> express(const Value<T>& x) const;

    // gain, then shift.
    std::vector<Value<T>> parameters() const { return {gain_, shift_}; }

    // "weight" (the gain) and "bias" (the shift), as torch.nn.LayerNorm names them.
    std::vector<NamedParameter> named_parameters() const {
        return {{"weight", gain_}, {"bias", shift_}};
    }

    // The gain, [features], initially ones.
    const Value<T>& gain() const { return gain_; }

    // The shift, [features], initially zeros.
    const Value<T>& shift() const { return shift_; }

    // "LayerNorm(features, epsilon e)", then gain's and shift's shapes and nodes.
    std::string describe() const;

private:
    std::size_t features_;
    double epsilon_;
    Value<T> gain_;
    Value<T> shift_;
};

extern template class LayerNorm<float>;
extern template class LayerNorm<double>;
extern template class LayerNorm<bf16>;

}  // namespace topos
