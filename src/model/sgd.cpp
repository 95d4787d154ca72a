// Sgd: the options checked (Nesterov needs a momentum), the zero momentum
// buffers, and one step, pure (fresh slots) or in place, with weight decay,
// momentum and Nesterov momentum as PyTorch defines them, each element in
// double and rounded to T where it is stored, in chunks over the thread pool.
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

template <ComputeElement T>
SgdState<T> Sgd::start(const Parameters<T>& parameters) const {
    return {.steps = 0, .momentum = detail::zeros_like(parameters)};
}

namespace {

// What one slot's update reads and writes: the pure step writes fresh
// buffers; an in-place step passes each next_ pointer equal to the one it
// replaces.
template <ComputeElement T>
struct SgdSlot {
    const T* parameter;
    const T* gradient;
    const T* momentum;
    T* next_parameter;
    T* next_momentum;
};

template <ComputeElement T>
struct SgdElement {
    T parameter;
    T momentum;
};

// One element's step, in double, rounded to T where it is stored.
template <ComputeElement T>
SgdElement<T> sgd_element(
    const SgdOptions& o, double learning_rate, T parameter, T gradient, T momentum) {
    const double mu = o.momentum;
    const double p = parameter;
    const double decayed = double{gradient} + o.weight_decay * p;
    const T b = static_cast<T>(mu * double{momentum} + decayed);
    double direction = decayed;
    if (mu > 0) {
        direction = o.nesterov ? decayed + mu * double{b} : double{b};
    }
    return {static_cast<T>(p - learning_rate * direction), b};
}

// Every element of a slot, in chunks over the pool, each chunk on the AVX2
// copy of its loop where the processor has it. The in-place form reads and
// writes through the same pointers, so compilers see that an element is read
// before it is replaced and give the loop lanes.
template <ComputeElement T>
void update(const SgdOptions& o, double learning_rate, const SgdSlot<T>& s, std::size_t count) {
    const bool in_place = s.next_parameter == s.parameter && s.next_momentum == s.momentum;
    detail::for_each_chunk(count, [&](std::size_t begin, std::size_t end) {
        if (in_place) {
            T* p = s.next_parameter;
            T* b = s.next_momentum;
            const T* g = s.gradient;
            detail::each_index(begin, end, [&](std::size_t i) {
                const SgdElement<T> next = sgd_element(o, learning_rate, p[i], g[i], b[i]);
                p[i] = next.parameter;
                b[i] = next.momentum;
            });
            return;
        }
        detail::each_index(begin, end, [&](std::size_t i) {
            const SgdElement<T> next =
                sgd_element(o, learning_rate, s.parameter[i], s.gradient[i], s.momentum[i]);
            s.next_parameter[i] = next.parameter;
            s.next_momentum[i] = next.momentum;
        });
    });
}

template <ComputeElement T>
void check_parts(const Parameters<T>& parameters,
                 const Parameters<T>& gradients,
                 const SgdState<T>& state) {
    detail::check_same_network(parameters, gradients, "gradients");
    detail::check_same_network(parameters, state.momentum, "Sgd state's buffers");
}

}  // namespace

template <ComputeElement T>
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

template <ComputeElement T>
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
