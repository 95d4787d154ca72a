// The order in which a plan's steps make its declared values final.
#include "plan/finishing.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace topos::detail {
namespace {

// By stored slot: the step after which the slot holds its value, or -1 when
// it is a source's (final before the first step).
template <Element T>
std::vector<std::int64_t> final_step_of_slots(const PlanState<T>& plan) {
    const std::int64_t after_every_step = static_cast<std::int64_t>(plan.steps.size()) - 1;
    std::vector<std::int64_t> final_step(plan.stored_nodes.size(), after_every_step);
    for (std::size_t slot = 0; slot < plan.stored_nodes.size(); ++slot) {
        if (is_source(plan.graph_nodes()[plan.stored_nodes[slot]].opcode())) {
            final_step[slot] = -1;
        }
    }
    if (plan.executor != nullptr) {
        return final_step;
    }
    const auto note = [&](const Location& location, std::size_t step) {
        if (location.kind == Location::Kind::Stored) {
            final_step[location.index] = static_cast<std::int64_t>(step);
        }
    };
    for (std::size_t step = 0; step < plan.steps.size(); ++step) {
        note(plan.steps[step].output, step);
        if (plan.steps[step].election >= 0) {
            const auto election = static_cast<std::size_t>(plan.steps[step].election);
            for (const std::optional<Location>& result :
                 plan.election_locations[election].results) {
                if (result) {
                    note(*result, step);
                }
            }
        }
    }
    return final_step;
}

}  // namespace

template <Element T>
void order_finishing(PlanState<T>& plan, const std::vector<Symbol>& declared_values) {
    const std::vector<std::int64_t> final_step = final_step_of_slots(plan);

    struct Declared {
        std::int64_t step;
        std::uint32_t node;
    };

    std::vector<Declared> declared;
    for (const Symbol& value : declared_values) {
        const bool seen = std::any_of(declared.begin(), declared.end(), [&](const Declared& d) {
            return d.node == value.index();
        });
        const std::int32_t slot = plan.run_layout->slot[value.index()];
        if (!seen && slot >= 0) {
            declared.push_back({final_step[static_cast<std::size_t>(slot)], value.index()});
        }
    }
    std::stable_sort(declared.begin(), declared.end(), [](const Declared& a, const Declared& b) {
        return a.step < b.step;
    });
    plan.finish_order.clear();
    plan.finished_after.assign(plan.steps.size() + 1, 0);
    for (const Declared& value : declared) {
        plan.finish_order.push_back(value.node);
        ++plan.finished_after[static_cast<std::size_t>(value.step + 1)];
    }
    for (std::size_t i = 1; i < plan.finished_after.size(); ++i) {
        plan.finished_after[i] += plan.finished_after[i - 1];
    }
}

template void order_finishing(PlanState<float>&, const std::vector<Symbol>&);
template void order_finishing(PlanState<double>&, const std::vector<Symbol>&);
template void order_finishing(PlanState<bf16>&, const std::vector<Symbol>&);

}  // namespace topos::detail
