// Host execution of plan steps: the address of each location (arena, stored
// value or source), one step run by its kernel, its backend's kernel or the
// catalog's fused kernel, a group of steps run at once over the thread pool
// (the first failure in schedule order rethrown), and each step's tally.
#include "plan/host_steps.hpp"

#include "core/thread_pool.hpp"
#include "graph/node_view.hpp"
#include "kernels/bf16_rows.hpp"
#include "ops/op_info.hpp"
#include "pattern/catalog.hpp"
#include "run/tally_scope.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

namespace topos::detail {
namespace {

// The pattern's formula (with the backend that computed it, if one did), and
// each member a backend served in its stead.
template <Element T>
void tally_election(const PlanState<T>& plan, const Step<T>& step) {
    Tally* tally = active_tally();
    if (tally == nullptr) {
        return;
    }
    const auto e = static_cast<std::size_t>(step.election);
    if (step.server != nullptr) {
        tally->add(name_of(plan.patterns[e].formula()),
                   precision_of<T>(),
                   step.server->name,
                   step.server->fidelity);
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
void compute_election(const HostMemory<T>& memory, const Step<T>& step) {
    const PlanState<T>& plan = memory.plan;
    const auto e = static_cast<std::size_t>(step.election);
    if (!match_runs(plan.elections[e].match, plan.graph_nodes())) {
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
    if (step.server != nullptr) {
        step.server->template match_kernel<T>()(plan.elections[e].match, inputs, results);
    } else {
        run_match<T>(plan.elections[e].match, inputs, results);
    }
}

template <Element T>
void compute_kernel(const HostMemory<T>& memory, const Step<T>& step) {
    if (!op_info(step.node->opcode()).kernel_runs_for(step.node->shape())) {
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
}

// Whether an election's row has a kernel over bf16 values (a map region).
bool runs_in_bf16(const Election& election) {
    return pattern_row(election.match.kind).kernel_bf16 != nullptr;
}

// The other matches a bf16 plan elects run in float on the widened inputs,
// by their row's kernel_bf16_in_float (which rounds inside where the contract
// does) or, for those that round nowhere but at their root (lower.cpp's
// rounds_only_at_root), the float kernel; each result rounds once as it is
// written, the contract's value.
void compute_widened_election(const HostMemory<bf16>& memory, const Step<bf16>& step) {
    const PlanState<bf16>& plan = memory.plan;
    const auto e = static_cast<std::size_t>(step.election);
    const Match& match = plan.elections[e].match;
    const std::vector<Node>& nodes = plan.graph_nodes();
    if (!match_runs(match, nodes)) {
        return;
    }
    const ElectionLocations& locations = plan.election_locations[e];
    thread_local std::vector<std::vector<float>> widened;
    thread_local std::vector<const float*> inputs;
    thread_local std::vector<float*> results;
    widened.resize(locations.inputs.size() + locations.results.size());
    inputs.clear();
    results.clear();
    for (std::size_t i = 0; i < locations.inputs.size(); ++i) {
        const std::size_t count = nodes[match.inputs[i]].shape().elements();
        float* to = float_scratch(widened[i], count);
        widen_row(memory.read_address(locations.inputs[i]), count, to);
        inputs.push_back(to);
    }
    for (std::size_t r = 0; r < locations.results.size(); ++r) {
        const std::size_t count =
            locations.results[r] ? nodes[match.results[r]].shape().elements() : 0;
        float* sums = float_scratch(widened[locations.inputs.size() + r], count);
        results.push_back(locations.results[r] ? sums : nullptr);
    }
    const PatternRow& row = pattern_row(match.kind);
    const FusedKernel<float> kernel =
        row.kernel_bf16_in_float != nullptr ? row.kernel_bf16_in_float : row.kernel_f32;
    kernel(match, inputs, results);
    for (std::size_t r = 0; r < locations.results.size(); ++r) {
        if (locations.results[r]) {
            round_row(results[r],
                      nodes[match.results[r]].shape().elements(),
                      memory.address(*locations.results[r]));
        }
    }
}

template <Element T>
void compute_step(const HostMemory<T>& memory, const Step<T>& step) {
    if (step.election >= 0) {
        if constexpr (!ComputeElement<T>) {
            if (!runs_in_bf16(memory.plan.elections[static_cast<std::size_t>(step.election)])) {
                compute_widened_election(memory, step);
                return;
            }
        }
        compute_election(memory, step);
        return;
    }
    compute_kernel(memory, step);
}

// Tallies run on the caller's thread, in schedule order.
template <Element T>
void tally_step(const PlanState<T>& plan, const Step<T>& step) {
    if (step.election >= 0) {
        tally_election(plan, step);
    } else {
        tally_kernel_step(step);
    }
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
    compute_step(memory, step);
    tally_step(memory.plan, step);
}

template <Element T>
void run_host_steps_at_once(const HostMemory<T>& memory, std::span<const Step<T>> steps) {
    // One slot a step, so a failure is reported as the steps in order would
    // have: the first failing step's, after the tallies of those before it.
    thread_local std::vector<std::exception_ptr> failures;
    failures.assign(steps.size(), nullptr);
    // The tasks write the caller's slots: the thread_local named inside a task
    // would be each worker's own.
    std::vector<std::exception_ptr>& failed = failures;
    ThreadPool::instance().run(steps.size(), [&](std::size_t i) {
        try {
            compute_step(memory, steps[i]);
        } catch (...) {
            failed[i] = std::current_exception();
        }
    });
    for (std::size_t i = 0; i < steps.size(); ++i) {
        if (failed[i]) {
            std::rethrow_exception(std::exchange(failed[i], nullptr));
        }
        tally_step(memory.plan, steps[i]);
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
template struct HostMemory<bf16>;
template void run_host_step(const HostMemory<float>&, const Step<float>&);
template void run_host_step(const HostMemory<double>&, const Step<double>&);
template void run_host_step(const HostMemory<bf16>&, const Step<bf16>&);
template void run_host_steps_at_once(const HostMemory<float>&, std::span<const Step<float>>);
template void run_host_steps_at_once(const HostMemory<double>&, std::span<const Step<double>>);
template void run_host_steps_at_once(const HostMemory<bf16>&, std::span<const Step<bf16>>);
template void tally_kernel_step(const Step<float>&);
template void tally_kernel_step(const Step<double>&);
template void tally_kernel_step(const Step<bf16>&);

}  // namespace topos::detail
