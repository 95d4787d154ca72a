// Lowering: the ancestor closure of the declared values becomes a schedule;
// each value gets its liveness; intermediates get arena offsets; each computed
// node becomes a step with resolved operand locations.
#include "autodiff/scan_reads.hpp"
#include "plan/arena.hpp"
#include "plan/closure.hpp"
#include "plan/plan_state.hpp"

namespace topos::detail {
namespace {

constexpr std::size_t arena_alignment_bytes = 64;

std::vector<Liveness> liveness_of(const Schedule& schedule,
                                  const std::vector<bool>& declared,
                                  const std::vector<bool>& retained,
                                  bool backward) {
    std::vector<Liveness> liveness;
    liveness.reserve(schedule.order.size());
    for (std::uint32_t index : schedule.order) {
        const std::int32_t last = schedule.last_read[index];
        const std::uint32_t reader =
            last < 0 ? index : schedule.order[static_cast<std::size_t>(last)];
        if (declared[index]) {
            liveness.push_back({Liveness::Kind::Kept});
        } else if (backward) {
            liveness.push_back(retained[index] ? Liveness{Liveness::Kind::Retained}
                                               : Liveness{Liveness::Kind::Releasable, reader});
        } else {
            liveness.push_back({Liveness::Kind::Freed, reader});
        }
    }
    return liveness;
}

// Decides where every scheduled value lives during a run.
template <Element T>
std::vector<Location> place_values(PlanState<T>& plan, const std::vector<bool>& declared) {
    const std::vector<Node>& nodes = plan.network->spec.nodes;
    const bool backward = plan.entry.keeps_backward();
    std::vector<Location> where(nodes.size(), Location{Location::Kind::Arena, 0});
    std::vector<BufferInterval> intervals;
    std::vector<std::uint32_t> in_arena;
    auto layout = std::make_shared<RunLayout>();
    layout->slot.assign(nodes.size(), -1);
    layout->readable = declared;
    layout->backward_ready = backward;
    layout->declaration = backward ? "this plan" : "this plan (lowered without .backward())";
    plan.source_of_node.assign(nodes.size(), -1);
    for (std::size_t position = 0; position < plan.schedule.order.size(); ++position) {
        const std::uint32_t index = plan.schedule.order[position];
        const bool stored = declared[index] || backward;
        std::int32_t slot = -1;
        if (stored) {
            slot = static_cast<std::int32_t>(plan.stored_nodes.size());
            plan.stored_nodes.push_back(index);
            layout->slot[index] = slot;
        }
        if (is_source(nodes[index].opcode())) {
            plan.source_of_node[index] = static_cast<std::int32_t>(plan.sources.size());
            where[index] = {Location::Kind::Source, plan.sources.size()};
            plan.sources.push_back({index, slot});
        } else if (stored) {
            where[index] = {Location::Kind::Stored, static_cast<std::size_t>(slot)};
        } else {
            in_arena.push_back(index);
            intervals.push_back({position,
                                 static_cast<std::size_t>(plan.schedule.last_read[index]),
                                 nodes[index].shape().elements()});
        }
    }
    const ArenaAssignment arena = assign_arena(intervals, arena_alignment_bytes / sizeof(T));
    for (std::size_t i = 0; i < in_arena.size(); ++i) {
        where[in_arena[i]] = {Location::Kind::Arena, arena.offsets[i]};
    }
    plan.arena_elements = arena.elements;
    plan.run_layout = std::move(layout);
    return where;
}

template <Element T>
void build_steps(PlanState<T>& plan, const std::vector<Location>& where) {
    const std::vector<Node>& nodes = plan.network->spec.nodes;
    for (std::uint32_t index : plan.schedule.order) {
        const Node& node = nodes[index];
        if (is_source(node.opcode())) {
            continue;
        }
        Step<T> step{op_info(node.opcode()).template kernel<T>(), &node, {}, where[index]};
        for (std::size_t i = 0; i < node.operands().size(); ++i) {
            step.operands[i] = where[node.operands()[i]];
        }
        plan.steps.push_back(step);
    }
}

}  // namespace

template <Element T>
PlanState<T> lower_entry(const Entry<T>& entry) {
    PlanState<T> plan(entry);
    const std::vector<Node>& nodes = plan.network->spec.nodes;
    const std::vector<Symbol> declared_values = entry.declared();
    std::vector<bool> declared(nodes.size(), false);
    for (const Symbol& value : declared_values) {
        declared[value.index()] = true;
    }
    plan.readable = declared_values.size();
    const std::vector<bool> scheduled = ancestors(nodes, declared_values);
    plan.schedule = schedule_of(nodes, scheduled);
    const std::vector<bool> retained = entry.keeps_backward()
                                           ? values_read_by_scan(nodes, scheduled)
                                           : std::vector<bool>(nodes.size());
    plan.liveness = liveness_of(plan.schedule, declared, retained, entry.keeps_backward());
    plan.volume = live_volume(nodes, plan.schedule, plan.liveness);
    for (std::uint32_t index : plan.schedule.order) {
        plan.nodes.push_back(nodes[index]);
    }
    build_steps(plan, place_values(plan, declared));
    return plan;
}

template PlanState<float> lower_entry(const Entry<float>&);
template PlanState<double> lower_entry(const Entry<double>&);

}  // namespace topos::detail
