#include "model/slot_math.hpp"
#include <topos/core/error.hpp>
#include <topos/model/optim.hpp>

#include <cmath>
#include <vector>

namespace topos::optim {

Adam::Adam(AdamOptions options) : Adam(options, false) {}

Adam::Adam(AdamOptions options, bool decoupled) : options_(options), decoupled_(decoupled) {
    const bool betas =
        options.beta1 >= 0 && options.beta1 < 1 && options.beta2 >= 0 && options.beta2 < 1;
    if (!betas || !(options.epsilon > 0) || !(options.learning_rate >= 0) ||
        !(options.weight_decay >= 0)) {
        throw Error(std::string(decoupled ? "AdamW" : "Adam") +
                    " needs 0 <= beta1, beta2 < 1, epsilon > 0, and a learning rate and weight "
                    "decay >= 0");
    }
}

template <Element T>
AdamState<T> Adam::start(const Parameters<T>& parameters) const {
    return {.steps = 0,
            .first_moment = detail::zeros_like(parameters),
            .second_moment = detail::zeros_like(parameters)};
}

namespace {

struct Moments {
    double correction1;       // 1 - beta1^t
    double root_correction2;  // sqrt(1 - beta2^t)
};

}  // namespace

template <Element T>
Stepped<T, AdamState<T>> Adam::step(const Parameters<T>& parameters,
                                    const Parameters<T>& gradients,
                                    const AdamState<T>& state,
                                    double learning_rate) const {
    detail::check_same_network(parameters, gradients, "gradients");
    detail::check_same_network(parameters, state.first_moment, "Adam state's first moments");
    detail::check_same_network(parameters, state.second_moment, "Adam state's second moments");
    const AdamOptions& o = options_;
    const std::uint64_t t = state.steps + 1;
    const Moments bias{1 - std::pow(o.beta1, static_cast<double>(t)),
                       std::sqrt(1 - std::pow(o.beta2, static_cast<double>(t)))};
    const double l2 = decoupled_ ? 0.0 : o.weight_decay;
    const double shrink = decoupled_ ? 1 - learning_rate * o.weight_decay : 1.0;
    std::vector<Tensor<T>> next_p;
    std::vector<Tensor<T>> next_m;
    std::vector<Tensor<T>> next_v;
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        const auto p = parameters.values()[slot].data();
        const auto g = gradients.values()[slot].data();
        const auto m = state.first_moment.values()[slot].data();
        const auto v = state.second_moment.values()[slot].data();
        std::vector<T> p2(p.size());
        std::vector<T> m2(p.size());
        std::vector<T> v2(p.size());
        for (std::size_t i = 0; i < p.size(); ++i) {
            const double grad = double{g[i]} + l2 * double{p[i]};
            m2[i] = static_cast<T>(o.beta1 * double{m[i]} + (1 - o.beta1) * grad);
            v2[i] = static_cast<T>(o.beta2 * double{v[i]} + (1 - o.beta2) * grad * grad);
            const double denominator = std::sqrt(double{v2[i]}) / bias.root_correction2 + o.epsilon;
            p2[i] = static_cast<T>(double{p[i]} * shrink -
                                   learning_rate / bias.correction1 * double{m2[i]} / denominator);
        }
        const Shape& shape = parameters.values()[slot].shape();
        next_p.emplace_back(shape, p2);
        next_m.emplace_back(shape, m2);
        next_v.emplace_back(shape, v2);
    }
    return {parameters.with_values(std::move(next_p)),
            {.steps = t,
             .first_moment = parameters.with_values(std::move(next_m)),
             .second_moment = parameters.with_values(std::move(next_v))}};
}

template AdamState<float> Adam::start(const Parameters<float>&) const;
template AdamState<double> Adam::start(const Parameters<double>&) const;
template Stepped<float, AdamState<float>> Adam::step(const Parameters<float>&,
                                                     const Parameters<float>&,
                                                     const AdamState<float>&,
                                                     double) const;
template Stepped<double, AdamState<double>> Adam::step(const Parameters<double>&,
                                                       const Parameters<double>&,
                                                       const AdamState<double>&,
                                                       double) const;

}  // namespace topos::optim
