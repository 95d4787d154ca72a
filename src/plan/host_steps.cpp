#include "plan/host_steps.hpp"

#include "graph/node_view.hpp"
#include "ops/op_info.hpp"
#include "pattern/catalog.hpp"
#include "run/tally_scope.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace topos::detail {
namespace {

// The pattern's formula, and each member a backend served in its stead.
template <Element T>
void tally_election(const PlanState<T>& plan, std::size_t e) {
    Tally* tally = active_tally();
    if (tally == nullptr) {
        return;
    }
    tally->add(
        name_of(plan.patterns[e].formula()), precision_of<T>(), reference_name, Fidelity::Exact);
    if (plan.member_servers.empty()) {
        return;
    }
    const std::vector<Node>& nodes = plan.graph_nodes();
    for (const std::uint32_t node : plan.elections[e].match.nodes) {
        if (const Server* server = plan.member_servers[node]) {
            tally->add(
                name_of(nodes[node].opcode()), precision_of<T>(), server->name, server->fidelity);
        }
    }
}

// A match writes something, or covers a node that checks indices: the rule of
// OpInfo::kernel_runs_for, for every node the pattern's kernel computes.
bool match_runs(const Match& match, const std::vector<Node>& nodes) {
    return std::any_of(match.nodes.begin(), match.nodes.end(), [&](std::uint32_t index) {
        const Node& node = nodes[index];
        return op_info(node.opcode()).kernel_runs_for(node.shape());
    });
}

template <Element T>
void run_election(const HostMemory<T>& memory, std::size_t e) {
    const PlanState<T>& plan = memory.plan;
    if (!match_runs(plan.elections[e].match, plan.graph_nodes())) {
        tally_election(plan, e);
        return;
    }
    const ElectionLocations& locations = plan.election_locations[e];
    thread_local std::vector<const T*> inputs;
    thread_local std::vector<T*> results;
    inputs.clear();
    results.clear();
    for (const Location& location : locations.inputs) {
        inputs.push_back(memory.read_address(location));
    }
    for (const std::optional<Location>& location : locations.results) {
        results.push_back(location ? memory.address(*location) : nullptr);
    }
    run_match<T>(plan.elections[e].match, inputs, results);
    tally_election(plan, e);
}

template <Element T>
void run_kernel(const HostMemory<T>& memory, const Step<T>& step) {
    if (!op_info(step.node->opcode()).kernel_runs_for(step.node->shape())) {
        tally_kernel_step(step);
        return;
    }
    const std::vector<Node>& nodes = memory.plan.graph_nodes();
    const std::span<const std::uint32_t> operands = step.node->operands();
    std::array<View<T>, Node::max_operands> views{};
    for (std::size_t i = 0; i < operands.size(); ++i) {
        views[i] = {memory.read_address(step.operands[i]), &nodes[operands[i]].shape()};
    }
    step.kernel(view_of(*step.node),
                std::span<const View<T>>(views.data(), operands.size()),
                memory.address(step.output));
    tally_kernel_step(step);
}

}  // namespace

template <Element T>
T* HostMemory<T>::address(const Location& location) const {
    switch (location.kind) {
        case Location::Kind::Arena:
            return arena.data() + location.index;
        case Location::Kind::Stored:
            return stored[location.index].get();
        case Location::Kind::Source:
            break;
    }
    return nullptr;
}

template <Element T>
const T* HostMemory<T>::read_address(const Location& location) const {
    return location.kind == Location::Kind::Source ? sources[location.index]->data().data()
                                                   : address(location);
}

template <Element T>
void run_host_step(const HostMemory<T>& memory, const Step<T>& step) {
    if (step.election >= 0) {
        run_election(memory, static_cast<std::size_t>(step.election));
    } else {
        run_kernel(memory, step);
    }
}

template <Element T>
void tally_kernel_step(const Step<T>& step) {
    Tally* tally = active_tally();
    if (tally == nullptr) {
        return;
    }
    const std::string_view formula = name_of(step.node->opcode());
    if (step.server != nullptr) {
        tally->add(formula, precision_of<T>(), step.server->name, step.server->fidelity);
    } else {
        tally->add(formula, precision_of<T>(), reference_name, Fidelity::Exact);
    }
}

template struct HostMemory<float>;
template struct HostMemory<double>;
template void run_host_step(const HostMemory<float>&, const Step<float>&);
template void run_host_step(const HostMemory<double>&, const Step<double>&);
template void tally_kernel_step(const Step<float>&);
template void tally_kernel_step(const Step<double>&);

}  // namespace topos::detail
