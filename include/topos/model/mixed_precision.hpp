// MixedPrecision<Master>: a Function run in bf16 over a master copy of its
// parameters in float (or double), every node in bf16, as PyTorch trains a
// bfloat16 copy of a model over float master weights (to narrow only the
// products, as torch.autocast does, record the model under an Autocast).
// The model and the body are written once, in Master; a call records the
// body at the inputs' shapes through the Function, converts that network to
// bf16 (Network::convert) and lowers it once per shape. Each call rounds
// the master parameters and the inputs once to bf16, computes by the bf16
// contract, and widens what it returns exactly to Master: the value, and the
// gradients an optimizer applies to the master copy, its state in Master:
//
//   Function<float> loss(model, [&](const Value<float>& x, const Value<float>& labels) {
//       return cross_entropy(net.express(x), labels);
//   }, {Argument::Real, Argument::Indices});
//   MixedPrecision<float> mixed(loss);
//   auto [value, gradients] = mixed.value_and_gradients(master, rows, labels);
//   adam.step_in_place(master, gradients, state);
//
// bf16 has float's exponent range, so no loss scaling is needed. Index
// arguments must be integers bf16 holds exactly (up to 256 in magnitude):
// token ids beyond that need a float Function. Safe to call from several
// threads at once.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/model/function.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/parameters.hpp>

#include <array>
#include <concepts>
#include <memory>
#include <span>
#include <vector>

namespace topos {

namespace detail {
template <ComputeElement Master>
struct MixedCache;
}  // namespace detail

template <ComputeElement Master>
class MixedPrecision {
public:
    // Runs `function` in bf16; the Function records the body, once per shape.
    explicit MixedPrecision(Function<Master> function);

    // The body's value at these inputs, computed in bf16, widened to Master.
    // Throws as Function's call does, and FeedError for an index argument
    // bf16 does not hold exactly.
    template <class... Inputs>
    requires(std::convertible_to<const Inputs&, const Tensor<Master>&>&&...) Tensor<Master>

    operator()(const Parameters<Master>& master, const Inputs&... inputs) const {
        const std::array<Tensor<Master>, sizeof...(Inputs)> all{Tensor<Master>(inputs)...};
        return call(master, all);
    }

    // The same as operator(), the inputs as a span, one per argument.
    Tensor<Master> call(const Parameters<Master>& master,
                        std::span<const Tensor<Master>> inputs) const;

    // The rank-0 value and the gradient for every parameter slot of the model,
    // computed in bf16 and widened to Master, ready for the master copy's
    // optimizer step.
    template <class... Inputs>
    requires(std::convertible_to<const Inputs&, const Tensor<Master>&>&&...)
        ValueAndGradients<Master> value_and_gradients(const Parameters<Master>& master,
                                                      const Inputs&... inputs)
    const {
        const std::array<Tensor<Master>, sizeof...(Inputs)> all{Tensor<Master>(inputs)...};
        return value_and_gradients(master, std::span<const Tensor<Master>>(all));
    }

    // The same, the inputs as a span, one per argument.
    ValueAndGradients<Master> value_and_gradients(const Parameters<Master>& master,
                                                  std::span<const Tensor<Master>> inputs) const;

    // The bf16 plans a call and value_and_gradients run at these input shapes
    // (compiled now if new): to print, emit or measure.
    Plan<bf16> plan(const std::vector<Shape>& shapes) const;
    Plan<bf16> gradient_plan(const std::vector<Shape>& shapes) const;

    // The Function it runs in bf16.
    const Function<Master>& function() const;

private:
    std::shared_ptr<detail::MixedCache<Master>> cache_;
};

extern template class MixedPrecision<float>;
extern template class MixedPrecision<double>;

}  // namespace topos
