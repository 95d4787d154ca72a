// MixedPrecision: each shape's body is recorded once through the Function (in
// Master), and the network of that plan is converted to bf16 and lowered; the
// bf16 plans are cached by posture and input shapes under a mutex. Calls round
// the master parameters and the inputs to bf16 and widen the results back.
#include "model/plan_key.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/model/mixed_precision.hpp>
#include <topos/run/run.hpp>

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace topos {
namespace detail {
namespace {

// The bf16 plan of one posture at one tuple of input shapes.
struct MixedPlan {
    Plan<bf16> plan;
    std::vector<Symbol> inputs;
    Symbol output;
    std::optional<Adjoints<bf16>> adjoints;  // set for a gradient plan
};

// The Function's arguments are the Input nodes it recorded after the model's.
template <ComputeElement Master>
std::vector<Symbol> argument_inputs(const Network<Master>& recorded, std::size_t model_nodes) {
    std::vector<Symbol> inputs;
    for (const Node& node : recorded.nodes()) {
        if (node.index() >= model_nodes && node.opcode() == Opcode::Input) {
            inputs.push_back(node.symbol());
        }
    }
    return inputs;
}

template <ComputeElement Master>
MixedPlan narrowed(const Function<Master>& function, const Plan<Master>& recorded, bool gradients) {
    const Entry<Master>& entry = recorded.entry();
    const std::vector<Symbol> roots = entry.declared();
    const Network<bf16> network = entry.network().template convert<bf16>();
    MixedPlan mixed{network.entry(roots).numerics(entry.numerics()).lower(),
                    argument_inputs(entry.network(), function.model().nodes().size()),
                    roots.front(),
                    std::nullopt};
    if (gradients) {
        const std::span<const Symbol> parameters = function.model().parameters().symbols();
        std::vector<std::pair<Symbol, Symbol>> pairs;
        for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
            pairs.emplace_back(parameters[slot], roots[slot + 1]);
        }
        mixed.adjoints = Adjoints<bf16>(roots.front(), std::move(pairs));
    }
    return mixed;
}

// An index argument must reach the bf16 plan unchanged: a rounded id is another id.
template <ComputeElement Master>
Tensor<bf16> narrowed_input(const Tensor<Master>& input, Argument kind, std::size_t position) {
    Tensor<bf16> narrow = input.template convert<bf16>();
    if (kind == Argument::Indices) {
        for (std::size_t i = 0; i < input.data().size(); ++i) {
            if (static_cast<Master>(narrow.data()[i]) != input.data()[i]) {
                throw FeedError("MixedPrecision call: argument " + std::to_string(position) +
                                " (indices) holds " + Tensor<Master>(input.data()[i]).str() +
                                ", which bf16 does not hold exactly (it holds integers up to "
                                "256); run ids past that through the Function itself");
            }
        }
    }
    return narrow;
}

}  // namespace

template <ComputeElement Master>
struct MixedCache {
    explicit MixedCache(Function<Master> function) : function(std::move(function)) {}

    Function<Master> function;
    std::mutex mutex;
    std::map<PlanKey, std::shared_ptr<const MixedPlan>> plans;

    std::shared_ptr<const MixedPlan> plan_for(bool gradients, const std::vector<Shape>& shapes) {
        const std::lock_guard lock(mutex);
        const PlanKey key = plan_key(gradients ? 1 : 0, shapes);
        if (const auto found = plans.find(key); found != plans.end()) {
            return found->second;
        }
        const Plan<Master> recorded =
            gradients ? function.gradient_plan(shapes) : function.plan(shapes);
        auto plan = std::make_shared<const MixedPlan>(narrowed(function, recorded, gradients));
        plans.emplace(key, plan);
        return plan;
    }

    topos::Run<bf16> run(const MixedPlan& plan,
                         const Parameters<Master>& master,
                         std::span<const Tensor<Master>> inputs) const {
        std::vector<Feed<bf16>> feeds;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            feeds.push_back(
                {plan.inputs[i], narrowed_input(inputs[i], function.arguments()[i], i)});
        }
        return plan.plan.forward(master.template convert<bf16>(), feeds);
    }
};

}  // namespace detail

template <ComputeElement Master>
MixedPrecision<Master>::MixedPrecision(Function<Master> function)
    : cache_(std::make_shared<detail::MixedCache<Master>>(std::move(function))) {}

template <ComputeElement Master>
Tensor<Master> MixedPrecision<Master>::call(const Parameters<Master>& master,
                                            std::span<const Tensor<Master>> inputs) const {
    const auto plan = cache_->plan_for(false, detail::shapes_of(inputs));
    return cache_->run(*plan, master, inputs).of(plan->output).template convert<Master>();
}

template <ComputeElement Master>
ValueAndGradients<Master> MixedPrecision<Master>::value_and_gradients(
    const Parameters<Master>& master, std::span<const Tensor<Master>> inputs) const {
    const auto plan = cache_->plan_for(true, detail::shapes_of(inputs));
    const topos::Run<bf16> run = cache_->run(*plan, master, inputs);
    return {run.of(plan->output).template convert<Master>(),
            run.recorded_gradients(*plan->adjoints).template convert<Master>()};
}

template <ComputeElement Master>
Plan<bf16> MixedPrecision<Master>::plan(const std::vector<Shape>& shapes) const {
    return cache_->plan_for(false, shapes)->plan;
}

template <ComputeElement Master>
Plan<bf16> MixedPrecision<Master>::gradient_plan(const std::vector<Shape>& shapes) const {
    return cache_->plan_for(true, shapes)->plan;
}

template <ComputeElement Master>
const Function<Master>& MixedPrecision<Master>::function() const {
    return cache_->function;
}

template class MixedPrecision<float>;
template class MixedPrecision<double>;

}  // namespace topos
