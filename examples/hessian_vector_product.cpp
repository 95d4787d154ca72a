// A Hessian-vector product recorded on the tape: grad records the gradient of
// the loss, and grad of its inner product with v records H v. A plan computes
// it and emits it as StableHLO for XLA or IREE. Its LibTorch twin, which has
// no StableHLO to emit: docs/twins/hessian_vector_product.cpp.
#include <topos/topos.hpp>

#include <iostream>

int main() {
    topos::Tape<double> tape;
    const auto w = tape.parameter(topos::Tensor<double>(topos::Shape{3}, {0.5, -1.0, 2.0}));
    const auto v = tape.input(topos::Tensor<double>(topos::Shape{3}, {1.0, 0.0, -1.0}));
    // Two statements, so the tape records the terms in this order on every compiler.
    const auto fit = (w.tanh() * w).sum();
    const auto loss = fit + (w * w).sum().log();
    const topos::Symbol hv = grad((grad(loss, w) * v).sum(), w);
    const auto plan = std::move(tape).into_network().entry({hv}).lower();
    std::cout << "H v = " << plan.forward().of(hv) << '\n' << plan.emit_stablehlo();
}
