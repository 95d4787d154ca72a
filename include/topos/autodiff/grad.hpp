// grad(target, wrt): d target / d wrt recorded on the target's tape, as a
// value to record more with: jax.grad of one argument, and the first step of a
// second derivative (grad((grad(loss, w) * v).sum(), w) is a Hessian-vector
// product). `target` must be rank 0 (GradientError otherwise); `wrt` is any
// value of the same tape (a parameter, an input, a computed value).
#pragma once

#include <topos/graph/value.hpp>

namespace topos {

// d target / d wrt as a value of the target's tape.
template <Element T>
Value<T> grad(const Value<T>& target, const Value<T>& wrt);

extern template Value<float> grad(const Value<float>&, const Value<float>&);
extern template Value<double> grad(const Value<double>&, const Value<double>&);
extern template Value<bf16> grad(const Value<bf16>&, const Value<bf16>&);

}  // namespace topos
