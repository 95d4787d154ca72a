// Dropout<T>: multiplies its input by a mask that is an Input of the tape, so a
// run stays a pure function of its feeds: the same mask gives the same bits.
// The mask holds 0 for a dropped element and 1 / (1 - rate) for a kept one
// (inverted dropout, as torch.nn.Dropout in training mode). Its recorded
// default is all ones, so a run that feeds no mask evaluates the module as the
// identity (evaluation mode). `mask(seed)` draws a training mask to feed.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/named.hpp>
#include <topos/run/run.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class Dropout {
public:
    // The mask input has `shape`, the shape of the values this module will see.
    // Throws ShapeError unless 0 <= rate < 1.
    Dropout(Tape<T>& tape, const Shape& shape, double rate);

    // x must have the mask's shape (ShapeError otherwise).
    Value<T> express(const Value<T>& x) const;

    // None: the mask is an input, not a parameter.
    std::vector<Value<T>> parameters() const { return {}; }

    // None.
    std::vector<NamedParameter> named_parameters() const { return {}; }

    // A feed for the mask input: init::dropout(seed, 1 - rate) at the mask's
    // shape, so each element is dropped with probability `rate` and a seed
    // gives the same mask on every platform.
    Feed<T> mask(std::uint64_t seed) const;

    // The mask's Input node, which mask(seed) feeds.
    const Value<T>& mask_input() const { return mask_; }

    // The probability that an element is dropped.
    double rate() const { return rate_; }

    // "Dropout(rate r)", then the mask input's shape and node.
    std::string describe() const;

private:
    double rate_;
    Value<T> mask_;
};

extern template class Dropout<float>;
extern template class Dropout<double>;
extern template class Dropout<bf16>;

}  // namespace topos
