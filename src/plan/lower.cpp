// Lowering: the ancestor closure of the declared values becomes a schedule;
// the catalog's matches are elected; each value gets its liveness;
// intermediates get arena offsets; each computed node (or elected pattern)
// becomes a step with resolved operand locations.
#include "autodiff/scan_reads.hpp"
#include "graph/closure.hpp"
#include "pattern/catalog.hpp"
#include "pattern/map.hpp"
#include "plan/arena.hpp"
#include "plan/backend_seam.hpp"
#include "plan/concurrent_steps.hpp"
#include "plan/election.hpp"
#include "plan/finishing.hpp"
#include "plan/plan_state.hpp"
#include "plan/simplify.hpp"
#include "plan/timed_election.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

constexpr std::size_t arena_alignment_bytes = 64;

std::vector<Liveness> liveness_of(const Schedule& schedule,
                                  const std::vector<bool>& declared,
                                  const std::vector<bool>& retained,
                                  const std::vector<bool>& fused,
                                  bool backward) {
    std::vector<Liveness> liveness;
    liveness.reserve(schedule.order.size());
    for (std::uint32_t index : schedule.order) {
        const std::int32_t last = schedule.last_read[index];
        const std::uint32_t reader =
            last < 0 ? index : schedule.order[static_cast<std::size_t>(last)];
        if (fused[index]) {
            liveness.push_back({Liveness::Kind::Fused});
        } else if (declared[index]) {
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

// By node: the elections that cover it.
std::vector<std::vector<std::uint32_t>> elections_covering(std::size_t node_count,
                                                           const std::vector<Election>& elections) {
    std::vector<std::vector<std::uint32_t>> covering(node_count);
    for (std::uint32_t e = 0; e < elections.size(); ++e) {
        for (std::uint32_t node : elections[e].match.nodes) {
            covering[node].push_back(e);
        }
    }
    return covering;
}

// By node: whether it is interior to an elected pattern (covered, not written).
std::vector<bool> fused_nodes(std::size_t node_count, const std::vector<Election>& elections) {
    std::vector<bool> fused(node_count, false);
    for (const Election& election : elections) {
        for (std::uint32_t node : election.match.nodes) {
            fused[node] = true;
        }
    }
    for (const Election& election : elections) {
        for (std::size_t i = 0; i < election.match.results.size(); ++i) {
            if (election.writes[i]) {
                fused[election.match.results[i]] = false;
            }
        }
    }
    return fused;
}

// A pattern's kernel runs at its root, so a covered node's reads happen there.
void reads_at_roots(const std::vector<Node>& nodes,
                    Schedule& schedule,
                    const std::vector<Election>& elections) {
    const auto covering = elections_covering(nodes.size(), elections);
    std::fill(schedule.last_read.begin(), schedule.last_read.end(), -1);
    for (std::size_t position = 0; position < schedule.order.size(); ++position) {
        const std::uint32_t reader = schedule.order[position];
        auto at = static_cast<std::int32_t>(position);
        for (std::uint32_t e : covering[reader]) {
            at = std::max(at, schedule.position[elections[e].match.root]);
        }
        for (std::uint32_t operand : nodes[reader].operands()) {
            schedule.last_read[operand] = std::max(schedule.last_read[operand], at);
        }
    }
}

// Whether `index` is a node whose row reuses its operand's buffer (a Reshape)
// and can take over its operand's arena buffer:
// the operand lives in the arena and this is its last reader, so nothing reads
// the buffer as the operand afterwards. A reshape moves no element, so the
// buffer already holds its value and it never runs.
bool takes_over_operand(const Node& node,
                        std::size_t position,
                        const Schedule& schedule,
                        const std::vector<std::int32_t>& interval_of) {
    if (!op_info(node.opcode()).reuses_operand_buffer) {
        return false;
    }
    const std::uint32_t operand = node.operands()[0];
    return interval_of[operand] >= 0 &&
           schedule.last_read[operand] == static_cast<std::int32_t>(position);
}

// Decides where every scheduled value lives during a run.
template <Element T>
std::vector<Location> place_values(PlanState<T>& plan,
                                   const std::vector<bool>& declared,
                                   const std::vector<bool>& fused) {
    const std::vector<Node>& nodes = plan.graph_nodes();
    const bool backward = plan.entry.keeps_backward();
    std::vector<Location> where(nodes.size(), Location{Location::Kind::Arena, 0});
    std::vector<BufferInterval> intervals;
    std::vector<std::int32_t> interval_of(nodes.size(), -1);  // the arena buffer of each value
    auto layout = std::make_shared<RunLayout>();
    layout->slot.assign(nodes.size(), -1);
    layout->readable = declared;
    layout->backward_ready = backward;
    layout->declaration = backward ? "this plan" : "this plan (lowered without .backward())";
    plan.source_of_node.assign(nodes.size(), -1);
    for (std::size_t position = 0; position < plan.schedule.order.size(); ++position) {
        const std::uint32_t index = plan.schedule.order[position];
        if (fused[index]) {
            continue;
        }
        const bool stored = declared[index] || backward;
        std::int32_t slot = -1;
        if (stored) {
            slot = static_cast<std::int32_t>(plan.stored_nodes.size());
            plan.stored_nodes.push_back(index);
            layout->slot[index] = slot;
        }
        const auto last_read = static_cast<std::size_t>(plan.schedule.last_read[index]);
        if (is_source(nodes[index].opcode())) {
            plan.source_of_node[index] = static_cast<std::int32_t>(plan.sources.size());
            where[index] = {Location::Kind::Source, plan.sources.size()};
            plan.sources.push_back({index, slot});
        } else if (stored) {
            where[index] = {Location::Kind::Stored, static_cast<std::size_t>(slot)};
        } else if (takes_over_operand(nodes[index], position, plan.schedule, interval_of)) {
            const std::int32_t buffer = interval_of[nodes[index].operands()[0]];
            intervals[static_cast<std::size_t>(buffer)].last = last_read;
            interval_of[index] = buffer;
        } else {
            interval_of[index] = static_cast<std::int32_t>(intervals.size());
            intervals.push_back({position, last_read, nodes[index].shape().elements()});
        }
    }
    const ArenaAssignment arena = assign_arena(intervals, arena_alignment_bytes / sizeof(T));
    for (std::size_t index = 0; index < nodes.size(); ++index) {
        if (interval_of[index] >= 0) {
            where[index] = {Location::Kind::Arena,
                            arena.offsets[static_cast<std::size_t>(interval_of[index])]};
        }
    }
    plan.arena_elements = arena.elements;
    plan.run_layout = std::move(layout);
    return where;
}

// Whether `server` may take `node`: it is not timed, or it won the trial.
template <Element T>
bool wins_trial_where_timed(const Server& server, const Node& node, std::span<const Shape> shapes) {
    if constexpr (ComputeElement<T>) {
        return !server.timed || wins_timed_trial<T>(server, node, shapes);
    } else {
        return !server.timed;
    }
}

// The first optional backend that serves `node` under these numerics (an Exact
// plan takes only bit-identical servers), or null for the reference kernel.
template <Element T>
const Server* server_for(const Node& node, const std::vector<Node>& nodes, Numerics numerics) {
    std::array<Shape, Node::max_operands> shapes{};
    const auto operands = node.operands();
    for (std::size_t i = 0; i < operands.size(); ++i) {
        shapes[i] = nodes[operands[i]].shape();
    }
    const std::span<const Shape> operand_shapes(shapes.data(), operands.size());
    for (const Server* server : servers()) {
        const bool allowed = numerics == Numerics::Fast || server->fidelity == Fidelity::Exact;
        if (allowed && server->serves != nullptr && server->template kernel<T>() != nullptr &&
            server->serves(node, operand_shapes, precision_of<T>()) &&
            wins_trial_where_timed<T>(*server, node, operand_shapes)) {
            return server;
        }
    }
    return nullptr;
}

// The first optional backend that computes an elected match under these
// numerics, or null for the catalog's kernel.
template <Element T>
const Server* server_for_match(const Match& match, Numerics numerics) {
    for (const Server* server : servers()) {
        const bool allowed = numerics == Numerics::Fast || server->fidelity == Fidelity::Exact;
        if (allowed && server->serves_match != nullptr &&
            server->template match_kernel<T>() != nullptr &&
            server->serves_match(match, precision_of<T>())) {
            return server;
        }
    }
    return nullptr;
}

template <Element T>
ElectionLocations election_locations(const Election& election, const std::vector<Location>& where) {
    ElectionLocations locations;
    for (std::uint32_t input : election.match.inputs) {
        locations.inputs.push_back(where[input]);
    }
    for (std::size_t i = 0; i < election.match.results.size(); ++i) {
        locations.results.push_back(election.writes[i]
                                        ? std::optional<Location>(where[election.match.results[i]])
                                        : std::nullopt);
    }
    return locations;
}

// A node placed in its operand's arena buffer (takes_over_operand) has
// nothing to compute.
bool shares_operand_buffer(const Node& node, const std::vector<Location>& where) {
    if (!op_info(node.opcode()).reuses_operand_buffer) {
        return false;
    }
    const Location& value = where[node.symbol().index()];
    const Location& operand = where[node.operands()[0]];
    return value.kind == Location::Kind::Arena && operand.kind == Location::Kind::Arena &&
           value.index == operand.index;
}

template <Element T>
void build_steps(PlanState<T>& plan, const std::vector<Location>& where) {
    const std::vector<Node>& nodes = plan.graph_nodes();
    std::vector<std::int32_t> election_at(nodes.size(), -1);
    std::vector<bool> covered(nodes.size(), false);
    for (std::size_t e = 0; e < plan.elections.size(); ++e) {
        const Match& match = plan.elections[e].match;
        election_at[match.root] = static_cast<std::int32_t>(e);
        for (std::uint32_t node : match.nodes) {
            covered[node] = true;
        }
        plan.election_locations.push_back(election_locations<T>(plan.elections[e], where));
    }
    for (std::uint32_t index : plan.schedule.order) {
        const Node& node = nodes[index];
        if (election_at[index] >= 0) {
            const Match& match = plan.elections[static_cast<std::size_t>(election_at[index])].match;
            Step<T> step{nullptr, &node, {}, where[index], election_at[index]};
            step.server = server_for_match<T>(match, plan.entry.numerics());
            plan.steps.push_back(step);
            continue;
        }
        if (is_source(node.opcode()) || covered[index] || shares_operand_buffer(node, where)) {
            continue;
        }
        const Server* server = server_for<T>(node, nodes, plan.entry.numerics());
        Step<T> step{
            server ? server->template kernel<T>() : op_info(node.opcode()).template kernel<T>(),
            &node,
            {},
            where[index]};
        step.server = server;
        for (std::size_t i = 0; i < node.operands().size(); ++i) {
            step.operands[i] = where[node.operands()[i]];
        }
        plan.steps.push_back(step);
    }
}

// The device executor of the first backend that takes the plan, if any.
template <Element T>
const DeviceExecutor* executor_for(const PlanState<T>& plan) {
    if constexpr (ComputeElement<T>) {
        for (const Server* server : servers()) {
            if (server->device != nullptr && server->device->takes(plan)) {
                return server->device;
            }
        }
    }
    return nullptr;
}

// Under Fast numerics a device backend (CUDA) runs a plan's products itself,
// reading transposed operands through its own operand flags; an elected match
// whose row yields to a device (TransposedProduct) would bring those products
// back to the host.
std::vector<Match> without_host_transposes(std::vector<Match> matches, Numerics numerics) {
    const auto& all = servers();
    const bool device = std::any_of(
        all.begin(), all.end(), [](const Server* server) { return server->device != nullptr; });
    if (numerics == Numerics::Fast && device) {
        std::erase_if(
            matches, [](const Match& match) { return pattern_row(match.kind).yields_to_a_device; });
    }
    return matches;
}

// Whether a fused kernel's value is the bf16 contract's when it runs in float
// on the widened inputs and rounds its one result once: every node it covers
// moves values (a layout node) or picks one of its operands' (Max, Maximum),
// which rounding leaves as they are (a NaN's quiet bit aside, which the last
// rounding sets as the first would), except a root that is a matrix product,
// so no value inside it would round; and only the root is written. The
// convolution's window products, products with a transposed operand and max
// pooling are such; a batch norm or the image gradient's two folds round
// inside: they run node by node in a bf16 plan, unless their row has a
// kernel that rounds inside as the contract does (elects_in_bf16). (Map
// regions are grown apart, and their bf16 kernel rounds each member's block
// as its node would.)
bool rounds_only_at_root(const Match& match, const std::vector<Node>& nodes) {
    return match.results.size() == 1 &&
           std::all_of(match.nodes.begin(), match.nodes.end(), [&](std::uint32_t index) {
               const OpInfo& row = op_info(nodes[index].opcode());
               return row.kind == OpKind::Layout || row.picks_an_operand_element ||
                      (index == match.root && row.matrix_product);
           });
}

// Whether widening a match's inputs costs less than the values it keeps from
// being written: its covered nodes but the root must hold more elements than
// its inputs. A window product's windows are many times its image; a product
// with a transposed operand would widen the whole operand (a weight matrix,
// at twice its bytes) to save one permute of it, which in bf16 moves 16-bit
// values, so it runs node by node.
bool saves_more_than_it_widens(const Match& match, const std::vector<Node>& nodes) {
    std::size_t widened = 0;
    for (const std::uint32_t input : match.inputs) {
        widened += nodes[input].shape().elements();
    }
    std::size_t saved = 0;
    for (const std::uint32_t index : match.nodes) {
        saved += index == match.root ? 0 : nodes[index].shape().elements();
    }
    return saved > widened;
}

// Whether a bf16 plan elects the match: its float kernel on the widened
// inputs gives the contract's results, rounding inside where it must, and
// saves more than it widens.
bool elects_in_bf16(const Match& match, const std::vector<Node>& nodes) {
    return (rounds_only_at_root(match, nodes) ||
            pattern_row(match.kind).kernel_bf16_in_float != nullptr) &&
           saves_more_than_it_widens(match, nodes);
}

// A map region's members run the kernels of the host backends that serve them
// under these numerics (a Fast plan's approximate transcendentals); each
// choice is kept for the tally.
template <Element T>
MemberKernelsOf host_member_kernels(PlanState<T>& plan, Numerics numerics) {
    plan.member_servers.assign(plan.graph_nodes().size(), nullptr);
    return [&plan, numerics](const Node& member) -> MemberKernels {
        const Server* server = server_for<T>(member, plan.graph_nodes(), numerics);
        if (server == nullptr || server->device != nullptr) {
            return {};
        }
        plan.member_servers[member.symbol().index()] = server;
        return {server->kernel_f32, server->kernel_f64};
    };
}

// Map regions grow around what the catalog elected; each is elected as grown,
// writing only its root.
void elect_maps(std::vector<Election>& elections,
                const std::vector<Node>& nodes,
                const Schedule& schedule,
                const std::vector<bool>& declared,
                const std::vector<bool>& retained,
                const MemberKernelsOf& kernels_of) {
    std::vector<bool> covered(nodes.size(), false);
    for (const Election& election : elections) {
        for (std::uint32_t node : election.match.nodes) {
            covered[node] = true;
        }
    }
    for (Match& match :
         map_regions(nodes, schedule.order, declared, retained, covered, kernels_of)) {
        elections.push_back({std::move(match), {true}});
    }
    std::sort(elections.begin(), elections.end(), [](const Election& a, const Election& b) {
        return a.match.root < b.match.root;
    });
}

std::vector<Pattern> patterns_of(const std::vector<Election>& elections,
                                 const std::vector<Node>& nodes) {
    std::vector<Pattern> patterns;
    const auto symbols = [&](const std::vector<std::uint32_t>& indices, auto keep) {
        std::vector<Symbol> result;
        for (std::size_t i = 0; i < indices.size(); ++i) {
            if (keep(i)) {
                result.push_back(nodes[indices[i]].symbol());
            }
        }
        return result;
    };
    for (const Election& election : elections) {
        const Match& match = election.match;
        patterns.emplace_back(
            match.kind,
            nodes[match.root].symbol(),
            symbols(match.nodes, [](std::size_t) { return true; }),
            symbols(match.results, [&](std::size_t i) { return election.writes[i]; }));
    }
    return patterns;
}

// What lowering keeps of the entry's declaration, over the nodes it reads.
struct Kept {
    std::vector<bool> declared;  // by node index: computes a declared value
    std::vector<bool> retained;  // by node index: computes a value the reverse scan reads
    std::vector<bool> scheduled;
};

// Simplifies the declared values' closure when the entry asks, and moves the
// declaration onto the nodes that compute each value.
template <Element T>
Kept simplify_declared(PlanState<T>& plan, const std::vector<Symbol>& declared_values) {
    const std::vector<Node>& nodes = plan.network->spec.nodes;
    Kept kept{std::vector<bool>(nodes.size(), false), {}, ancestors(nodes, declared_values)};
    for (const Symbol& value : declared_values) {
        kept.declared[value.index()] = true;
    }
    kept.retained = plan.entry.keeps_backward() ? values_read_by_scan(nodes, kept.scheduled)
                                                : std::vector<bool>(nodes.size(), false);
    if (!plan.entry.simplifies()) {
        return kept;
    }
    Simplified simplified = simplify(plan.network->spec, kept.scheduled);
    Kept moved{std::vector<bool>(nodes.size(), false), std::vector<bool>(nodes.size(), false), {}};
    std::vector<Symbol> roots;
    for (std::size_t index = 0; index < nodes.size(); ++index) {
        const std::uint32_t node = simplified.stand_in[index];
        moved.declared[node] = moved.declared[node] || kept.declared[index];
        moved.retained[node] = moved.retained[node] || kept.retained[index];
        if (kept.declared[index] || kept.retained[index]) {
            roots.push_back(nodes[node].symbol());
        }
    }
    moved.scheduled = ancestors(simplified.nodes, roots);
    plan.graph = std::make_shared<const std::vector<Node>>(std::move(simplified.nodes));
    plan.stand_in = std::move(simplified.stand_in);
    plan.identities_folded = simplified.identities_folded;
    plan.duplicates_merged = simplified.duplicates_merged;
    return moved;
}

// Each declared value, and in the backward posture each value the reverse scan
// reads, is read where the node that computes it is stored.
template <Element T>
void read_through_stand_ins(PlanState<T>& plan, const std::vector<Symbol>& declared_values) {
    if (plan.stand_in.empty()) {
        return;
    }
    auto layout = std::make_shared<RunLayout>(*plan.run_layout);
    std::fill(layout->readable.begin(), layout->readable.end(), false);
    for (const Symbol& value : declared_values) {
        layout->readable[value.index()] = true;
    }
    for (std::size_t index = 0; index < plan.stand_in.size(); ++index) {
        layout->slot[index] = layout->slot[plan.stand_in[index]];
    }
    plan.run_layout = std::move(layout);
}

}  // namespace

template <Element T>
PlanState<T> lower_entry(const Entry<T>& entry) {
    PlanState<T> plan(entry);
    const std::vector<Symbol> declared_values = entry.declared();
    const Kept kept = simplify_declared(plan, declared_values);
    const std::vector<Node>& nodes = plan.graph_nodes();
    const std::vector<bool>& declared = kept.declared;
    const std::vector<bool>& retained = kept.retained;
    plan.readable = declared_values.size();
    plan.schedule = schedule_of(nodes, kept.scheduled);
    const bool elects = entry.elects_patterns();
    std::vector<Match> matches;
    if (elects) {
        matches = without_host_transposes(find_matches(nodes, kept.scheduled), entry.numerics());
        if constexpr (!ComputeElement<T>) {
            std::erase_if(matches,
                          [&](const Match& match) { return !elects_in_bf16(match, nodes); });
        }
    }
    plan.elections = elect(nodes, plan.schedule, std::move(matches), declared, retained);
    if (elects) {
        elect_maps(plan.elections,
                   nodes,
                   plan.schedule,
                   declared,
                   retained,
                   host_member_kernels<T>(plan, entry.numerics()));
    }
    const std::vector<bool> fused = fused_nodes(nodes.size(), plan.elections);
    reads_at_roots(nodes, plan.schedule, plan.elections);
    plan.liveness = liveness_of(plan.schedule, declared, retained, fused, entry.keeps_backward());
    plan.volume = live_volume(nodes, plan.schedule, plan.liveness);
    for (std::uint32_t index : plan.schedule.order) {
        plan.nodes.push_back(nodes[index]);
        plan.fused_nodes += fused[index] ? 1 : 0;
    }
    plan.patterns = patterns_of(plan.elections, nodes);
    build_steps(plan, place_values(plan, declared, fused));
    read_through_stand_ins(plan, declared_values);
    plan.executor = executor_for(plan);
    if (plan.executor == nullptr) {
        group_concurrent_steps(plan);
    }
    order_finishing(plan, declared_values);
    return plan;
}

template PlanState<float> lower_entry(const Entry<float>&);
template PlanState<double> lower_entry(const Entry<double>&);
template PlanState<bf16> lower_entry(const Entry<bf16>&);

}  // namespace topos::detail
