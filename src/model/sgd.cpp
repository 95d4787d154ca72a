#include "model/slot_math.hpp"
#include <topos/core/error.hpp>
#include <topos/model/optim.hpp>

#include <vector>

namespace topos::optim {

Sgd::Sgd(SgdOptions options) : options_(options) {
    if (!(options.learning_rate >= 0 && options.momentum >= 0 && options.weight_decay >= 0)) {
        throw Error("Sgd needs a learning rate, momentum and weight decay >= 0");
    }
    if (options.nesterov && !(options.momentum > 0)) {
        throw Error("Sgd with Nesterov momentum needs a momentum > 0 (as torch.optim.SGD)");
    }
}

template <Element T>
SgdState<T> Sgd::start(const Parameters<T>& parameters) const {
    return {.steps = 0, .momentum = detail::zeros_like(parameters)};
}

template <Element T>
Stepped<T, SgdState<T>> Sgd::step(const Parameters<T>& parameters,
                                  const Parameters<T>& gradients,
                                  const SgdState<T>& state,
                                  double learning_rate) const {
    detail::check_same_network(parameters, gradients, "gradients");
    detail::check_same_network(parameters, state.momentum, "Sgd state's buffers");
    const double mu = options_.momentum;
    std::vector<Tensor<T>> next_parameters;
    std::vector<Tensor<T>> next_buffers;
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        const auto p = parameters.values()[slot].data();
        const auto g = gradients.values()[slot].data();
        const auto b = state.momentum.values()[slot].data();
        std::vector<T> p2(p.size());
        std::vector<T> b2(p.size());
        for (std::size_t i = 0; i < p.size(); ++i) {
            const double decayed = double{g[i]} + options_.weight_decay * double{p[i]};
            b2[i] = static_cast<T>(mu * double{b[i]} + decayed);
            double direction = decayed;
            if (mu > 0) {
                direction = options_.nesterov ? decayed + mu * double{b2[i]} : double{b2[i]};
            }
            p2[i] = static_cast<T>(double{p[i]} - learning_rate * direction);
        }
        const Shape& shape = parameters.values()[slot].shape();
        next_parameters.emplace_back(shape, p2);
        next_buffers.emplace_back(shape, b2);
    }
    return {
        parameters.with_values(std::move(next_parameters)),
        {.steps = state.steps + 1, .momentum = parameters.with_values(std::move(next_buffers))}};
}

template SgdState<float> Sgd::start(const Parameters<float>&) const;
template SgdState<double> Sgd::start(const Parameters<double>&) const;
template Stepped<float, SgdState<float>> Sgd::step(const Parameters<float>&,
                                                   const Parameters<float>&,
                                                   const SgdState<float>&,
                                                   double) const;
template Stepped<double, SgdState<double>> Sgd::step(const Parameters<double>&,
                                                     const Parameters<double>&,
                                                     const SgdState<double>&,
                                                     double) const;

}  // namespace topos::optim
