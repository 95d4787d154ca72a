// group_concurrent_steps: each step's footprint (the arena extents and stored
// values it reads and writes, and its work), and groups of up to 16 nearby
// steps, none of which writes what another reads or writes, each small enough
// to stay on one thread and large enough to be worth handing over, reordered
// to sit together in the schedule.
#include "plan/concurrent_steps.hpp"

#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"
#include "pattern/catalog.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

// Elements from which the elementwise loops, sums, layout moves and map
// regions split their own work among the pool's threads (a product splits from
// GemmOptions' threshold). Such a step keeps the pool to itself.
constexpr std::size_t self_splitting_elements = 4 * elementwise_chunk;

// The most steps one group holds, and how far past its first step lowering
// looks for the others, so that finding conflicts stays cheap.
constexpr std::size_t max_group_steps = 16;
constexpr std::size_t look_ahead_steps = 24;

// A stretch of memory a step reads or writes: elements of the arena, or one of
// the run's stored values. Sources are never written, so never listed.
struct Extent {
    Location::Kind kind;
    std::size_t begin;
    std::size_t end;
};

bool overlap(const Extent& a, const Extent& b) {
    return a.kind == b.kind && a.begin < b.end && b.begin < a.end;
}

bool any_overlap(const std::vector<Extent>& some, const std::vector<Extent>& others) {
    return std::any_of(some.begin(), some.end(), [&](const Extent& a) {
        return std::any_of(
            others.begin(), others.end(), [&](const Extent& b) { return overlap(a, b); });
    });
}

// What one step reads and writes, and how much work it is.
struct Footprint {
    std::vector<Extent> reads;
    std::vector<Extent> writes;
    std::size_t work = 0;           // elements read and written, or multiply-adds
    std::size_t largest = 0;        // elements of its largest operand or result
    std::size_t multiply_adds = 0;  // of a product, else 0
    bool splits_by_itself =
        false;  // a kernel that always shares the pool, or has threads of its own
};

// Whether running `a` and `b` at once could let one see the other's writes.
bool conflict(const Footprint& a, const Footprint& b) {
    return any_overlap(a.writes, b.reads) || any_overlap(a.writes, b.writes) ||
           any_overlap(b.writes, a.reads);
}

bool keeps_the_pool(const Footprint& step, std::size_t self_splitting_multiply_adds) {
    return step.splits_by_itself || step.largest >= self_splitting_elements ||
           step.multiply_adds >= self_splitting_multiply_adds;
}

// Whether a step may run beside others: small enough to stay on one thread,
// large enough that another thread taking it saves more than handing it over
// costs.
bool may_share(const Footprint& step,
               std::size_t self_splitting_multiply_adds,
               std::size_t min_work) {
    return step.work >= min_work && !keeps_the_pool(step, self_splitting_multiply_adds);
}

void add(std::vector<Extent>& extents,
         Footprint& footprint,
         const Location& location,
         std::size_t elements) {
    footprint.work += elements;
    footprint.largest = std::max(footprint.largest, elements);
    switch (location.kind) {
        case Location::Kind::Arena:
            extents.push_back({location.kind, location.index, location.index + elements});
            break;
        case Location::Kind::Stored:
            extents.push_back({location.kind, location.index, location.index + 1});
            break;
        case Location::Kind::Source:
            break;
    }
}

// A product's multiply-adds: its result's elements times the depth its row
// declares (a matrix product's, the last extent of its left operand); 0 for
// a node whose row declares none.
std::size_t multiply_adds_of(const Node& node, const std::vector<Node>& nodes) {
    return node.shape().elements() * depth_of(node, nodes);
}

// Whether the pattern's kernel shares the pool by itself at any size, as its
// row says (convolutions and their gradients, by images or channels).
bool splits_by_itself(PatternKind kind) {
    return pattern_row(kind).splits_the_pool;
}

template <Element T>
Footprint footprint_of(const PlanState<T>& plan, const Step<T>& step) {
    const std::vector<Node>& nodes = plan.graph_nodes();
    Footprint footprint;
    const auto reads = [&](const Location& location, std::uint32_t node) {
        add(footprint.reads, footprint, location, nodes[node].shape().elements());
    };
    const auto writes = [&](const Location& location, std::uint32_t node) {
        add(footprint.writes, footprint, location, nodes[node].shape().elements());
    };
    if (step.election >= 0) {
        const auto e = static_cast<std::size_t>(step.election);
        const Match& match = plan.elections[e].match;
        const ElectionLocations& locations = plan.election_locations[e];
        for (std::size_t i = 0; i < locations.inputs.size(); ++i) {
            reads(locations.inputs[i], match.inputs[i]);
        }
        for (std::size_t i = 0; i < locations.results.size(); ++i) {
            if (locations.results[i]) {
                writes(*locations.results[i], match.results[i]);
            }
        }
        footprint.splits_by_itself = splits_by_itself(match.kind);
    } else {
        const std::span<const std::uint32_t> operands = step.node->operands();
        for (std::size_t i = 0; i < operands.size(); ++i) {
            reads(step.operands[i], operands[i]);
        }
        writes(step.output, step.node->symbol().index());
    }
    footprint.splits_by_itself =
        footprint.splits_by_itself || (step.server != nullptr && step.server->runs_own_threads);
    footprint.multiply_adds = multiply_adds_of(*step.node, nodes);
    footprint.work = std::max(footprint.work, footprint.multiply_adds);
    return footprint;
}

}  // namespace

template <Element T>
void group_concurrent_steps(PlanState<T>& plan, std::size_t min_work) {
    const std::size_t product_threshold = GemmOptions{}.parallel_threshold;
    const std::size_t count = plan.steps.size();
    std::vector<Footprint> footprints;
    footprints.reserve(count);
    for (const Step<T>& step : plan.steps) {
        footprints.push_back(footprint_of(plan, step));
    }
    const auto shares = [&](std::size_t s) {
        return may_share(footprints[s], product_threshold, min_work);
    };
    std::vector<bool> placed(count, false);
    std::vector<std::size_t> order;
    order.reserve(count);
    std::vector<StepGroup> groups;
    std::vector<std::size_t> members;
    std::vector<std::size_t> passed;  // looked at and left in place
    for (std::size_t first = 0; first < count; ++first) {
        if (placed[first]) {
            continue;
        }
        members.assign(1, first);
        passed.clear();
        for (std::size_t t = first + 1;
             shares(first) && t < count && members.size() < max_group_steps &&
             members.size() + passed.size() < look_ahead_steps;
             ++t) {
            if (placed[t]) {
                continue;
            }
            if (keeps_the_pool(footprints[t], product_threshold)) {
                break;
            }
            const auto conflicts = [&](std::size_t other) {
                return conflict(footprints[other], footprints[t]);
            };
            const bool joins = shares(t) &&
                               std::none_of(members.begin(), members.end(), conflicts) &&
                               std::none_of(passed.begin(), passed.end(), conflicts);
            (joins ? members : passed).push_back(t);
        }
        if (members.size() >= 2) {
            groups.push_back({order.size(), members.size()});
        }
        for (const std::size_t member : members) {
            placed[member] = true;
            order.push_back(member);
        }
    }
    std::vector<Step<T>> steps;
    steps.reserve(count);
    for (const std::size_t s : order) {
        steps.push_back(plan.steps[s]);
    }
    plan.steps = std::move(steps);
    plan.concurrent = std::move(groups);
}

template void group_concurrent_steps(PlanState<float>&, std::size_t);
template void group_concurrent_steps(PlanState<double>&, std::size_t);
template void group_concurrent_steps(PlanState<bf16>&, std::size_t);

}  // namespace topos::detail
