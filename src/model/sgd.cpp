#include "kernels/elementwise.hpp"
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

namespace {

// What one slot's update reads and writes; the next_ pointers may point at
// the elements they replace.
template <Element T>
struct SgdSlot {
    const T* parameter;
    const T* gradient;
    const T* momentum;
    T* next_parameter;
    T* next_momentum;
};

template <Element T>
void update(const SgdOptions& o, double learning_rate, const SgdSlot<T>& s, std::size_t count) {
    const double mu = o.momentum;
    detail::for_each_chunk(count, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const double p = s.parameter[i];
            const double decayed = double{s.gradient[i]} + o.weight_decay * p;
            const T b = static_cast<T>(mu * double{s.momentum[i]} + decayed);
            double direction = decayed;
            if (mu > 0) {
                direction = o.nesterov ? decayed + mu * double{b} : double{b};
            }
            s.next_momentum[i] = b;
            s.next_parameter[i] = static_cast<T>(p - learning_rate * direction);
        }
    });
}

template <Element T>
void check_parts(const Parameters<T>& parameters,
                 const Parameters<T>& gradients,
                 const SgdState<T>& state) {
    detail::check_same_network(parameters, gradients, "gradients");
    detail::check_same_network(parameters, state.momentum, "Sgd state's buffers");
}

}  // namespace

template <Element T>
Stepped<T, SgdState<T>> Sgd::step(const Parameters<T>& parameters,
                                  const Parameters<T>& gradients,
                                  const SgdState<T>& state,
                                  double learning_rate) const {
    check_parts(parameters, gradients, state);
    detail::FreshSlots<T> next_parameters(parameters);
    detail::FreshSlots<T> next_momentum(parameters);
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        const SgdSlot<T> s{parameters.values()[slot].data().data(),
                           gradients.values()[slot].data().data(),
                           state.momentum.values()[slot].data().data(),
                           next_parameters[slot],
                           next_momentum[slot]};
        update(options_, learning_rate, s, parameters.values()[slot].data().size());
    }
    return {std::move(next_parameters).adopt(),
            {.steps = state.steps + 1, .momentum = std::move(next_momentum).adopt()}};
}

template <Element T>
void Sgd::step_in_place(Parameters<T>& parameters,
                        const Parameters<T>& gradients,
                        SgdState<T>& state,
                        double learning_rate) const {
    check_parts(parameters, gradients, state);
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        T* p = detail::writable_slot(parameters, slot);
        T* b = detail::writable_slot(state.momentum, slot);
        update(options_,
               learning_rate,
               SgdSlot<T>{p, gradients.values()[slot].data().data(), b, p, b},
               parameters.values()[slot].data().size());
    }
    ++state.steps;
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
template void Sgd::step_in_place(Parameters<float>&,
                                 const Parameters<float>&,
                                 SgdState<float>&,
                                 double) const;
template void Sgd::step_in_place(Parameters<double>&,
                                 const Parameters<double>&,
                                 SgdState<double>&,
                                 double) const;

}  // namespace topos::optim
