// topos::optim: optimizers as pure transforms. A step reads the parameters,
// their gradients and the optimizer's explicit state, and returns the next
// parameters with the next state; nothing is updated in place, so a step can
// be repeated, compared or checkpointed:
//   auto [next, state2] = adam.step(parameters, gradients, state);
// A training loop that keeps only the latest parameters and state gives them
// up instead, and the step overwrites them with the same bits, allocating
// nothing (a tensor another value still shares is copied first, so no other
// value changes):
//   adam.step_in_place(parameters, gradients, state);
// Each update follows the formulas of the torch.optim class of the same name
// (docs/guide/models.md writes them out). Element arithmetic is in double,
// rounded to T once per stored value; the state is stored in T, as PyTorch does.
#pragma once

#include <topos/run/parameters.hpp>

#include <cstdint>
#include <utility>

namespace topos::optim {

// A step's result: `auto [next, state] = optimizer.step(...)`.
template <ComputeElement T, class State>
struct Stepped {
    Parameters<T> parameters;
    State state;

    // Moves the result into a loop's variables: `adam.step(p, g, s).into(p, s);`.
    void into(Parameters<T>& next_parameters, State& next_state) && {
        next_parameters = std::move(parameters);
        next_state = std::move(state);
    }
};

// --- SGD: torch.optim.SGD with dampening 0 ---------------------------------
//   g = gradient + weight_decay * p
//   b = momentum * b + g                        (b starts at 0, so b_1 = g_1)
//   d = nesterov ? g + momentum * b : b         (d = g when momentum is 0)
//   p = p - learning_rate * d
struct SgdOptions {
    double learning_rate = 0.01;
    double momentum = 0;
    bool nesterov = false;
    double weight_decay = 0;
};

// Sgd's state: the steps taken and the momentum buffers.
template <ComputeElement T>
struct SgdState {
    std::uint64_t steps = 0;
    Parameters<T> momentum;  // the buffer b, one per parameter (zeros at the start)
};

// torch.optim.SGD as a pure transform: the update above, options in SgdOptions.
class Sgd {
public:
    // Throws Error for a negative rate, momentum or decay, or Nesterov without momentum.
    explicit Sgd(SgdOptions options = {});

    // The state before the first step: zero buffers shaped like `parameters`.
    template <ComputeElement T>
    SgdState<T> start(const Parameters<T>& parameters) const;

    // One step at options().learning_rate, or at `learning_rate` (from a schedule).
    // Throws SymbolError when the three were made for different networks.
    template <ComputeElement T>
    Stepped<T, SgdState<T>> step(const Parameters<T>& parameters,
                                 const Parameters<T>& gradients,
                                 const SgdState<T>& state) const {
        return step(parameters, gradients, state, options_.learning_rate);
    }

    // The same at `learning_rate` (a schedule's, say).
    template <ComputeElement T>
    Stepped<T, SgdState<T>> step(const Parameters<T>& parameters,
                                 const Parameters<T>& gradients,
                                 const SgdState<T>& state,
                                 double learning_rate) const;

    // The same step written over `parameters` and `state`.
    template <ComputeElement T>
    void step_in_place(Parameters<T>& parameters,
                       const Parameters<T>& gradients,
                       SgdState<T>& state) const {
        step_in_place(parameters, gradients, state, options_.learning_rate);
    }

    // The same at `learning_rate`.
    template <ComputeElement T>
    void step_in_place(Parameters<T>& parameters,
                       const Parameters<T>& gradients,
                       SgdState<T>& state,
                       double learning_rate) const;

    // The options it was made with.
    const SgdOptions& options() const { return options_; }

private:
    SgdOptions options_;
};

// --- Adam and AdamW: torch.optim.Adam and torch.optim.AdamW (amsgrad off) ----
// At step t = 1, 2, ...:
//   g = gradient + weight_decay * p             (Adam: L2 folded into the gradient)
//   p = p * (1 - learning_rate * weight_decay)  (AdamW: decay decoupled, g unchanged)
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g^2
//   p = p - learning_rate / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + epsilon)
struct AdamOptions {
    double learning_rate = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
    double weight_decay = 0;
};

// AdamW's options: the same fields, with PyTorch's default decay of 0.01.
struct AdamWOptions {
    double learning_rate = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
    double weight_decay = 1e-2;
};

// Adam's and AdamW's state: the steps taken and both moments.
template <ComputeElement T>
struct AdamState {
    std::uint64_t steps = 0;      // t of the last step taken
    Parameters<T> first_moment;   // m
    Parameters<T> second_moment;  // v
};

// torch.optim.Adam as a pure transform: the update above, options in AdamOptions.
class Adam {
public:
    // Throws Error unless 0 <= beta < 1, epsilon > 0 and rate and decay are >= 0.
    explicit Adam(AdamOptions options = {});

    // The state before the first step: zero moments shaped like `parameters`.
    template <ComputeElement T>
    AdamState<T> start(const Parameters<T>& parameters) const;

    // One step at options().learning_rate; SymbolError for parts of different networks.
    template <ComputeElement T>
    Stepped<T, AdamState<T>> step(const Parameters<T>& parameters,
                                  const Parameters<T>& gradients,
                                  const AdamState<T>& state) const {
        return step(parameters, gradients, state, options_.learning_rate);
    }

    // The same at `learning_rate` (a schedule's, say).
    template <ComputeElement T>
    Stepped<T, AdamState<T>> step(const Parameters<T>& parameters,
                                  const Parameters<T>& gradients,
                                  const AdamState<T>& state,
                                  double learning_rate) const;

    // The same step written over `parameters` and `state`.
    template <ComputeElement T>
    void step_in_place(Parameters<T>& parameters,
                       const Parameters<T>& gradients,
                       AdamState<T>& state) const {
        step_in_place(parameters, gradients, state, options_.learning_rate);
    }

    // The same at `learning_rate`.
    template <ComputeElement T>
    void step_in_place(Parameters<T>& parameters,
                       const Parameters<T>& gradients,
                       AdamState<T>& state,
                       double learning_rate) const;

    // The options it was made with (an AdamW's as AdamOptions).
    const AdamOptions& options() const { return options_; }

protected:
    Adam(AdamOptions options, bool decoupled);

private:
    AdamOptions options_;
    bool decoupled_;
};

// torch.optim.AdamW: Adam with the weight decay decoupled from the gradient.
class AdamW : public Adam {
public:
    // Throws Error for the options Adam refuses.
    explicit AdamW(AdamWOptions options = {})
        : Adam({.learning_rate = options.learning_rate,
                .beta1 = options.beta1,
                .beta2 = options.beta2,
                .epsilon = options.epsilon,
                .weight_decay = options.weight_decay},
               true) {}
};

extern template SgdState<float> Sgd::start(const Parameters<float>&) const;
extern template Stepped<float, SgdState<float>> Sgd::step(const Parameters<float>&,
                                                          const Parameters<float>&,
                                                          const SgdState<float>&,
                                                          double) const;
extern template void Sgd::step_in_place(Parameters<float>&,
                                        const Parameters<float>&,
                                        SgdState<float>&,
                                        double) const;
extern template AdamState<float> Adam::start(const Parameters<float>&) const;
extern template void Adam::step_in_place(Parameters<float>&,
                                         const Parameters<float>&,
                                         AdamState<float>&,
                                         double) const;
extern template Stepped<float, AdamState<float>> Adam::step(const Parameters<float>&,
                                                            const Parameters<float>&,
                                                            const AdamState<float>&,
                                                            double) const;
extern template SgdState<double> Sgd::start(const Parameters<double>&) const;
extern template Stepped<double, SgdState<double>> Sgd::step(const Parameters<double>&,
                                                            const Parameters<double>&,
                                                            const SgdState<double>&,
                                                            double) const;
extern template void Sgd::step_in_place(Parameters<double>&,
                                        const Parameters<double>&,
                                        SgdState<double>&,
                                        double) const;
extern template AdamState<double> Adam::start(const Parameters<double>&) const;
extern template void Adam::step_in_place(Parameters<double>&,
                                         const Parameters<double>&,
                                         AdamState<double>&,
                                         double) const;
extern template Stepped<double, AdamState<double>> Adam::step(const Parameters<double>&,
                                                              const Parameters<double>&,
                                                              const AdamState<double>&,
                                                              double) const;

}  // namespace topos::optim
