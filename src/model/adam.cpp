// Adam and AdamW: the options checked, the zero moments, and one step, pure
// (fresh slots) or in place, each element updated in double and rounded to T
// where it is stored, in chunks over the thread pool. Adam folds weight decay
// into the gradient; AdamW shrinks the parameter by it.
#include "kernels/elementwise.hpp"
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

template <ComputeElement T>
AdamState<T> Adam::start(const Parameters<T>& parameters) const {
    return {.steps = 0,
            .first_moment = detail::zeros_like(parameters),
            .second_moment = detail::zeros_like(parameters)};
}

namespace {

// What one slot's update reads and writes: the pure step writes fresh
// buffers; an in-place step passes each next_ pointer equal to the one it
// replaces.
template <ComputeElement T>
struct AdamSlot {
    const T* parameter;
    const T* gradient;
    const T* first;
    const T* second;
    T* next_parameter;
    T* next_first;
    T* next_second;
};

// The step's constants, for step t at one learning rate.
struct AdamStep {
    double learning_rate;
    double correction1;       // 1 - beta1^t
    double root_correction2;  // sqrt(1 - beta2^t)
    double l2;                // Adam's decay, folded into the gradient
    double shrink;            // AdamW's decay, applied to the parameter
};

template <ComputeElement T>
struct AdamElement {
    T parameter;
    T first;
    T second;
};

// One element's step, in double, rounded to T where it is stored.
template <ComputeElement T>
AdamElement<T> adam_element(
    const AdamOptions& o, const AdamStep& k, T parameter, T gradient, T first, T second) {
    const double p = parameter;
    const double grad = double{gradient} + k.l2 * p;
    const T m = static_cast<T>(o.beta1 * double{first} + (1 - o.beta1) * grad);
    const T v = static_cast<T>(o.beta2 * double{second} + (1 - o.beta2) * grad * grad);
    const double denominator = std::sqrt(double{v}) / k.root_correction2 + o.epsilon;
    return {
        static_cast<T>(p * k.shrink - k.learning_rate / k.correction1 * double{m} / denominator),
        m,
        v};
}

// Every element of a slot, in chunks over the pool, each chunk on the AVX2
// copy of its loop where the processor has it (its square roots and divisions
// correctly rounded in vector lanes, so the same bits). The in-place form
// reads and writes through the same pointers, so compilers see that an
// element is read before it is replaced and give the loop lanes.
template <ComputeElement T>
void update(const AdamOptions& o, const AdamStep& k, const AdamSlot<T>& s, std::size_t count) {
    const bool in_place =
        s.next_parameter == s.parameter && s.next_first == s.first && s.next_second == s.second;
    detail::for_each_chunk(count, [&](std::size_t begin, std::size_t end) {
        if (in_place) {
            T* p = s.next_parameter;
            T* m = s.next_first;
            T* v = s.next_second;
            const T* g = s.gradient;
            detail::each_index(begin, end, [&](std::size_t i) {
                const AdamElement<T> next = adam_element(o, k, p[i], g[i], m[i], v[i]);
                p[i] = next.parameter;
                m[i] = next.first;
                v[i] = next.second;
            });
            return;
        }
        detail::each_index(begin, end, [&](std::size_t i) {
            const AdamElement<T> next =
                adam_element(o, k, s.parameter[i], s.gradient[i], s.first[i], s.second[i]);
            s.next_parameter[i] = next.parameter;
            s.next_first[i] = next.first;
            s.next_second[i] = next.second;
        });
    });
}

template <ComputeElement T>
void check_parts(const Parameters<T>& parameters,
                 const Parameters<T>& gradients,
                 const AdamState<T>& state) {
    detail::check_same_network(parameters, gradients, "gradients");
    detail::check_same_network(parameters, state.first_moment, "Adam state's first moments");
    detail::check_same_network(parameters, state.second_moment, "Adam state's second moments");
}

AdamStep constants(const AdamOptions& o, bool decoupled, std::uint64_t t, double learning_rate) {
    return {.learning_rate = learning_rate,
            .correction1 = 1 - std::pow(o.beta1, static_cast<double>(t)),
            .root_correction2 = std::sqrt(1 - std::pow(o.beta2, static_cast<double>(t))),
            .l2 = decoupled ? 0.0 : o.weight_decay,
            .shrink = decoupled ? 1 - learning_rate * o.weight_decay : 1.0};
}

}  // namespace

template <ComputeElement T>
Stepped<T, AdamState<T>> Adam::step(const Parameters<T>& parameters,
                                    const Parameters<T>& gradients,
                                    const AdamState<T>& state,
                                    double learning_rate) const {
    check_parts(parameters, gradients, state);
    const AdamStep k = constants(options_, decoupled_, state.steps + 1, learning_rate);
    detail::FreshSlots<T> next_p(parameters);
    detail::FreshSlots<T> next_m(parameters);
    detail::FreshSlots<T> next_v(parameters);
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        const AdamSlot<T> s{parameters.values()[slot].data().data(),
                            gradients.values()[slot].data().data(),
                            state.first_moment.values()[slot].data().data(),
                            state.second_moment.values()[slot].data().data(),
                            next_p[slot],
                            next_m[slot],
                            next_v[slot]};
        update(options_, k, s, parameters.values()[slot].data().size());
    }
    return {std::move(next_p).adopt(),
            {.steps = state.steps + 1,
             .first_moment = std::move(next_m).adopt(),
             .second_moment = std::move(next_v).adopt()}};
}

template <ComputeElement T>
void Adam::step_in_place(Parameters<T>& parameters,
                         const Parameters<T>& gradients,
                         AdamState<T>& state,
                         double learning_rate) const {
    check_parts(parameters, gradients, state);
    const AdamStep k = constants(options_, decoupled_, state.steps + 1, learning_rate);
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        T* p = detail::writable_slot(parameters, slot);
        T* m = detail::writable_slot(state.first_moment, slot);
        T* v = detail::writable_slot(state.second_moment, slot);
        const AdamSlot<T> s{p, gradients.values()[slot].data().data(), m, v, p, m, v};
        update(options_, k, s, parameters.values()[slot].data().size());
    }
    ++state.steps;
}

template AdamState<float> Adam::start(const Parameters<float>&) const;
template void Adam::step_in_place(Parameters<float>&,
                                  const Parameters<float>&,
                                  AdamState<float>&,
                                  double) const;
template AdamState<double> Adam::start(const Parameters<double>&) const;
template void Adam::step_in_place(Parameters<double>&,
                                  const Parameters<double>&,
                                  AdamState<double>&,
                                  double) const;
template Stepped<float, AdamState<float>> Adam::step(const Parameters<float>&,
                                                     const Parameters<float>&,
                                                     const AdamState<float>&,
                                                     double) const;
template Stepped<double, AdamState<double>> Adam::step(const Parameters<double>&,
                                                       const Parameters<double>&,
                                                       const AdamState<double>&,
                                                       double) const;

}  // namespace topos::optim
