// What lowering derives and every plan call reads: the schedule and its
// liveness for describe(), and the executable steps with their buffer locations.
#pragma once

#include "graph/spec.hpp"
#include "ops/op_info.hpp"
#include "pattern/match.hpp"
#include "plan/backend_seam.hpp"
#include "plan/liveness.hpp"
#include "run/run_layout.hpp"
#include <topos/plan/plan.hpp>

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace topos::detail {

// Where a step finds an operand or writes its result.
struct Location {
    enum class Kind : std::uint8_t {
        Source,  // a parameter, input or leaf tensor: index into the run's source list
        Arena,   // an intermediate: offset in elements into the arena
        Stored,  // a value the run stores: index into the run's values
    };
    Kind kind;
    std::size_t index;
};

// A scheduled source and where its tensor comes from.
struct SourceUse {
    std::uint32_t node;
    std::int32_t stored_slot;  // the run's slot when declared or retained, else -1
};

template <Element T>
struct Step {
    Kernel<T> kernel = nullptr;  // null when an elected pattern serves the step
    const Node* node = nullptr;
    std::array<Location, Node::max_operands> operands{};
    Location output{};
    std::int32_t election = -1;      // index into PlanState::elections, for a pattern's root
    const Server* server = nullptr;  // the optional backend that serves it, or the reference
};

// Steps [first, first + count) of a plan, which may run at once
// (plan/concurrent_steps.hpp).
struct StepGroup {
    std::size_t first;
    std::size_t count;
};

// Where an elected pattern's kernel reads its inputs and writes its results.
struct ElectionLocations {
    std::vector<Location> inputs;
    std::vector<std::optional<Location>> results;  // empty where the result is not written
};

template <Element T>
struct PlanState {
    explicit PlanState(Entry<T> declared)
        : entry(std::move(declared)),
          network(GraphAccess::state(entry.network())),
          graph(network, &network->spec.nodes) {}

    Entry<T> entry;
    std::shared_ptr<const NetworkState<T>> network;
    // The nodes lowering read, by index: the network's, or their simplified
    // copy (plan/simplify.hpp), whose operands are their stand-ins.
    std::shared_ptr<const std::vector<Node>> graph;
    // By node index, when the entry simplifies: the node whose value it has.
    std::vector<std::uint32_t> stand_in;
    std::size_t identities_folded = 0;
    std::size_t duplicates_merged = 0;
    Schedule schedule;
    std::vector<Node> nodes;  // the scheduled nodes, in order
    std::vector<Liveness> liveness;
    LiveVolume volume;
    std::size_t readable = 0;
    std::vector<Election> elections;
    std::vector<ElectionLocations> election_locations;  // by election
    std::vector<Pattern> patterns;                      // by election
    // By node index: the backend whose kernel a map region's member runs, or
    // null for the reference kernel.
    std::vector<const Server*> member_servers;
    std::size_t fused_nodes = 0;

    // Execution.
    std::vector<SourceUse> sources;
    std::vector<std::int32_t> source_of_node;  // by node index: index into `sources`, or -1
    std::vector<Step<T>> steps;
    std::vector<StepGroup> concurrent;        // ascending, disjoint
    std::vector<std::uint32_t> stored_nodes;  // by run slot
    std::size_t arena_elements = 0;
    std::shared_ptr<const RunLayout> run_layout;
    // The declared values (node indices) in the order the steps make them
    // final, and by step s the count of them final after it (at s + 1; at 0,
    // those final before the first step: parameters, inputs, leaves).
    std::vector<std::uint32_t> finish_order;
    std::vector<std::size_t> finished_after;
    // The backend that runs the whole plan on its device, or null: the host runs it.
    const DeviceExecutor* executor = nullptr;

    const std::vector<Node>& graph_nodes() const { return *graph; }

    // The node that computes `node`'s value in this plan.
    std::uint32_t computed_as(std::uint32_t node) const {
        return stand_in.empty() ? node : stand_in[node];
    }
};

// Plans are made and read only here: their constructor and state are private.
struct PlanAccess {
    template <Element T>
    static Plan<T> make(PlanState<T> state) {
        return Plan<T>(std::make_shared<const PlanState<T>>(std::move(state)));
    }

    template <Element T>
    static const PlanState<T>& state(const Plan<T>& plan) {
        return *plan.state_;
    }
};

template <Element T>
PlanState<T> lower_entry(const Entry<T>& entry);

}  // namespace topos::detail
