// Map: a region of elementwise operations run as one loop over blocks of
// elements. Every member runs its own reference kernel on each block, so each
// element sees exactly the operations the unfused plan performs, and the
// intermediates live in a block-sized scratch instead of the arena. A chain of
// BroadcastAlong that a large region reads joins it as one member that copies
// its block out of the chain's small operand (or, where it repeats a short
// pattern, is read in place from a tiling of that pattern); every region that
// reads the chain copies it so, and a step writes the repeated value at full
// size only where something outside the regions reads it. A region whose result only a
// Sum along its last axis reads computes those sums itself, whole rows at a
// time, in the Sum's order, so the summed value is never written either.
#include "pattern/map.hpp"

#include "core/thread_pool.hpp"
#include "graph/node_view.hpp"
#include "kernels/bf16_rows.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/striped_sum.hpp"
#include "ops/movement.hpp"
#include "pattern/catalog.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <queue>

namespace topos::detail {
namespace {

// A chain of BroadcastAlong read from its first operand: the region's axes,
// adjacent ones merged where they step alike, with the operand's stride along
// each (0 where the chain repeats it).
struct SpreadStrides {
    std::vector<std::size_t> extents;
    std::vector<std::size_t> strides;
};

// Elementwise members in node order, each reading inputs of the match or
// earlier members; all of one element count. The kernel runs the members' own
// kernels a block of elements at a time, so intermediates stay in a small
// scratch and every element sees the same operations as unfused. A spread
// member copies its block from its input instead of running a kernel.
struct MapGeometry {
    struct Member {
        const Node* node;
        std::array<std::int32_t, Node::max_operands> reads{};  // >= 0: member; < 0: input -1 - k
        MemberKernels kernels;
        std::optional<SpreadStrides> spread;
        // Where the spread repeats a short pattern (its outermost axis
        // repeated): the pattern's length. Blocks then read a tiling of the
        // pattern in place.
        std::size_t period = 0;

        template <Element T>
        Kernel<T> kernel() const {
            if constexpr (std::same_as<T, float>) {
                return kernels.f32;
            } else if constexpr (std::same_as<T, double>) {
                return kernels.f64;
            } else {
                return kernels.b16;
            }
        }
    };

    // Where the region's result is moved by a Permute that is a batch of
    // [rows, columns] transposes (a convolution's rows to channels-first
    // images, or back): the matrices' extents. The members then run on the
    // unmoved elements, whole rows at a time, and each task's rows are
    // written transposed.
    struct Transposed {
        std::size_t rows = 0;
        std::size_t columns = 0;
    };

    // Where the region's result is summed along its last axis by a Sum that
    // alone reads it: that axis's extent. The members then run whole rows at
    // a time, and each task writes its rows' striped sums, not the rows.
    struct Reduced {
        std::size_t extent = 0;
    };

    std::vector<Member> members;
    std::size_t elements = 0;
    std::optional<Transposed> transposed;
    std::optional<Reduced> reduced;
};

bool is_elementwise(Opcode opcode) {
    return op_info(opcode).kind == OpKind::Elementwise;
}

bool is_broadcast(const Node& node) {
    return node.opcode() == Opcode::BroadcastAlong;
}

bool sorted_contains(const std::vector<std::uint32_t>& region, std::uint32_t index) {
    return std::binary_search(region.begin(), region.end(), index);
}

// A region sums rows of at most this many elements itself: a task stages at
// least one row.
constexpr std::size_t longest_reduced_row = 16384;

class RegionGrower {
public:
    RegionGrower(const std::vector<Node>& nodes,
                 const std::vector<std::uint32_t>& order,
                 const std::vector<bool>& declared,
                 const std::vector<bool>& retained,
                 const std::vector<bool>& covered)
        : nodes_(nodes),
          declared_(declared),
          retained_(retained),
          covered_(covered),
          readers_(nodes.size()),
          in_region_(nodes.size(), false),
          root_of_(nodes.size(), no_region),
          scheduled_(nodes.size(), false) {
        for (std::uint32_t reader : order) {
            scheduled_[reader] = true;
            for (std::uint32_t operand : nodes[reader].operands()) {
                readers_[operand].push_back(reader);
            }
        }
    }

    bool can_root(std::uint32_t index) const {
        const Node& node = nodes_[index];
        return scheduled_[index] && !covered_[index] && !in_region_[index] &&
               is_elementwise(node.opcode()) && node.shape().elements() >= map_min_elements;
    }

    // The region grown back from `root`, ascending.
    std::vector<std::uint32_t> grow(std::uint32_t root) {
        std::vector<std::uint32_t> region{root};
        in_region_[root] = true;
        root_of_[root] = root;
        std::priority_queue<std::uint32_t> pending;  // highest index first: its readers are decided
        const auto offer_operands = [&](std::uint32_t member) {
            for (std::uint32_t operand : nodes_[member].operands()) {
                pending.push(operand);
            }
        };
        offer_operands(root);
        while (!pending.empty()) {
            const std::uint32_t candidate = pending.top();
            pending.pop();
            const bool spread = is_spread(candidate, root);
            const bool here =
                spread ? std::find(region.begin(), region.end(), candidate) != region.end()
                       : in_region_[candidate];
            if (here || !absorbable(candidate, root)) {
                continue;
            }
            if (!spread) {
                in_region_[candidate] = true;
                root_of_[candidate] = root;
            }
            region.push_back(candidate);
            offer_operands(candidate);
        }
        std::sort(region.begin(), region.end());
        return region;
    }

    // Gives up the region of one member rooted at `root`.
    void release(std::uint32_t root) {
        in_region_[root] = false;
        root_of_[root] = no_region;
    }

    // For each region, the spreads it takes in that need no step of their
    // own: every reader of such a spread is in a region that took it in too,
    // a member there or a spread that needs no step either. Each is given to
    // the first region that took it in; the others copy it all the same.
    std::vector<std::vector<std::uint32_t>> spreads_taken_in(
        const std::vector<std::vector<std::uint32_t>>& regions) const {
        std::vector<std::vector<std::size_t>> taken_by(nodes_.size());
        std::vector<bool> spread(nodes_.size(), false);
        for (std::size_t r = 0; r < regions.size(); ++r) {
            for (std::uint32_t index : regions[r]) {
                if (is_spread(index, regions[r].back())) {
                    taken_by[index].push_back(r);
                    spread[index] = true;
                }
            }
        }
        std::vector<bool> stepless(nodes_.size(), false);
        std::vector<std::vector<std::uint32_t>> given(regions.size());
        for (std::size_t index = nodes_.size(); index-- > 0;) {  // readers first
            if (!spread[index]) {
                continue;
            }
            const auto& takers = taken_by[index];
            const auto& readers = readers_[index];
            stepless[index] =
                std::all_of(readers.begin(), readers.end(), [&](std::uint32_t reader) {
                    const bool taken =
                        std::any_of(takers.begin(), takers.end(), [&](std::size_t r) {
                            return sorted_contains(regions[r], reader);
                        });
                    return taken && (!spread[reader] || stepless[reader]);
                });
            if (stepless[index]) {
                given[takers.front()].push_back(static_cast<std::uint32_t>(index));
            }
        }
        return given;
    }

    // What a region's match covers: its members, and of its spreads those
    // `given` to it; ascending.
    std::vector<std::uint32_t> covered_by(const std::vector<std::uint32_t>& region,
                                          const std::vector<std::uint32_t>& given) const {
        std::vector<std::uint32_t> covered;
        for (std::uint32_t index : region) {
            if (!is_spread(index, region.back()) ||
                std::find(given.begin(), given.end(), index) != given.end()) {
                covered.push_back(index);
            }
        }
        return covered;
    }

    // The Sum along the last axis that alone reads the region rooted at
    // `root`, where the region may compute its sums itself: the root read by
    // nothing else, neither declared nor retained, and rows short enough to
    // stage a task's worth at once.
    std::optional<std::uint32_t> reduced_tail(std::uint32_t root) const {
        const Shape& shape = nodes_[root].shape();
        if (shape.elements() < spread_min_elements || !free_link(root)) {
            return std::nullopt;
        }
        const std::uint32_t reader = readers_[root].front();
        const Node& sum = nodes_[reader];
        const auto* along = std::get_if<AxisAttributes>(&sum.attributes());
        if (sum.opcode() != Opcode::Sum || covered_[reader] || !scheduled_[reader] ||
            along == nullptr || along->axis + 1 != shape.rank() ||
            shape[along->axis] > longest_reduced_row) {
            return std::nullopt;
        }
        return reader;
    }

    // The Reshapes and the Permute that move the result of the region rooted
    // at `root` as a batch of transposes, where the region may write that
    // movement itself: the root and the Reshapes each read only by the next,
    // none of them declared or retained, none elected. Empty otherwise.
    std::vector<std::uint32_t> transposed_tail(std::uint32_t root) const {
        if (nodes_[root].shape().elements() < spread_min_elements || !free_link(root)) {
            return {};
        }
        std::vector<std::uint32_t> tail;
        std::uint32_t link = readers_[root].front();
        while (nodes_[link].opcode() == Opcode::Reshape && free_link(link)) {
            tail.push_back(link);
            link = readers_[link].front();
        }
        const Node& permute = nodes_[link];
        if (permute.opcode() != Opcode::Permute || covered_[link] || !scheduled_[link] ||
            !transposes(permute)) {
            return {};
        }
        tail.push_back(link);
        return tail;
    }

    // The movement of a Permute that `transposed_tail` accepts: a batch of
    // transposes.
    Movement movement_of(const Node& permute) const {
        return simplify(nodes_[permute.operands()[0]].shape(),
                        permute.attributes_as<PermuteAttributes>().order);
    }

private:
    bool free_link(std::uint32_t index) const {
        return readers_[index].size() == 1 && !declared_[index] && !retained_[index] &&
               !covered_[index] && scheduled_[index];
    }

    bool transposes(const Node& permute) const {
        const Movement movement = movement_of(permute);
        return movement.is_transpose() && movement.rank <= 3;
    }

    // A BroadcastAlong feeding a region of at least spread_min_elements: the
    // region's member (the chain's head, of the root's shape) or a link of the
    // chain that feeds one.
    bool is_spread(std::uint32_t index, std::uint32_t root) const {
        return is_broadcast(nodes_[index]) &&
               nodes_[root].shape().elements() >= spread_min_elements;
    }

    // An elementwise member of the root's shape that no region reads from
    // outside: every reader is in this region (a reader in another region
    // would find the value never written). A spread is copied from its small
    // operand wherever it is read, so any region may take one in, whoever
    // else reads it; it stays a step unless all its readers took it in
    // (spreads_taken_in).
    bool absorbable(std::uint32_t index, std::uint32_t root) const {
        const Node& node = nodes_[index];
        const Shape& shape = nodes_[root].shape();
        const bool spread = is_spread(index, root);
        const bool member = is_elementwise(node.opcode()) && node.shape() == shape;
        if (covered_[index] || declared_[index] || retained_[index] || !(member || spread)) {
            return false;
        }
        if (spread) {
            return true;
        }
        const auto& readers = readers_[index];
        return std::all_of(readers.begin(), readers.end(), [&](std::uint32_t reader) {
            return root_of_[reader] == root;
        });
    }

    const std::vector<Node>& nodes_;
    const std::vector<bool>& declared_;
    const std::vector<bool>& retained_;
    const std::vector<bool>& covered_;
    std::vector<std::vector<std::uint32_t>> readers_;
    static constexpr std::uint32_t no_region = std::numeric_limits<std::uint32_t>::max();

    std::vector<bool> in_region_;
    std::vector<std::uint32_t> root_of_;  // the root of the region holding each node
    std::vector<bool> scheduled_;
};

// Joins the region's adjacent axes that step alike (both repeated, or both
// contiguous in the operand) and drops axes of extent 1.
SpreadStrides merged(const Shape& shape, const std::vector<std::size_t>& strides) {
    SpreadStrides spread;
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        const std::size_t extent = shape[axis], stride = strides[axis];
        if (extent == 1) {
            continue;
        }
        if (!spread.extents.empty()) {
            const std::size_t inner = spread.strides.back();
            if ((inner == 0 && stride == 0) || (stride != 0 && inner == stride * extent)) {
                spread.extents.back() *= extent;
                spread.strides.back() = stride;
                continue;
            }
        }
        spread.extents.push_back(extent);
        spread.strides.push_back(stride);
    }
    return spread;  // never empty: the region has spread_min_elements
}

// Walks a chain of BroadcastAlong down from `head` to its first operand
// outside the region: that operand, and how the head's elements read it.
std::pair<std::uint32_t, SpreadStrides> spread_of(const std::vector<Node>& nodes,
                                                  const std::vector<std::uint32_t>& region,
                                                  std::uint32_t head) {
    const Shape& shape = nodes[head].shape();
    std::vector<std::size_t> origin(shape.rank());  // the head's axis of each axis below
    std::iota(origin.begin(), origin.end(), std::size_t{0});
    std::uint32_t link = head;
    while (sorted_contains(region, link) && is_broadcast(nodes[link])) {
        const std::size_t axis = nodes[link].attributes_as<BroadcastAttributes>().axis;
        origin.erase(origin.begin() + static_cast<std::ptrdiff_t>(axis));
        link = nodes[link].operands()[0];
    }
    std::vector<std::size_t> strides(shape.rank(), 0);
    std::size_t stride = 1;
    for (std::size_t k = origin.size(); k-- > 0;) {
        strides[origin[k]] = stride;
        stride *= shape[origin[k]];
    }
    return {link, merged(shape, strides)};
}

constexpr std::size_t block_elements = 512;

// Spreads that repeat a pattern of at most this many elements are read from a
// tiling of it (built once a task, so a fraction of the task's elements).
constexpr std::size_t longest_period = 4 * block_elements;

// The length of the pattern a spread repeats along its outermost axis (what
// its inner axes read), where that is at most longest_period; 0 otherwise.
std::size_t period_of(const SpreadStrides& spread) {
    if (spread.strides.front() != 0) {
        return 0;
    }
    std::size_t period = 1;
    for (std::size_t axis = 1; axis < spread.extents.size(); ++axis) {
        period *= spread.extents[axis];
    }
    return period <= longest_period ? period : 0;
}

// The region's match: its members, and where `tail` (RegionGrower::
// transposed_tail) is not empty, the movement the region writes at its end,
// the tail's Permute then the match's root.
Match map_match(const std::vector<Node>& nodes,
                const std::vector<std::uint32_t>& region,
                std::vector<std::uint32_t> covered,
                const MemberKernelsOf& kernels_of,
                const std::vector<std::uint32_t>& tail,
                std::optional<std::uint32_t> sum,
                const RegionGrower& grower) {
    const std::uint32_t root = region.back();
    MapGeometry geometry;
    geometry.elements = nodes[root].shape().elements();
    std::vector<std::uint32_t> inputs;
    const auto input_read = [&](std::uint32_t operand) {
        auto input = std::find(inputs.begin(), inputs.end(), operand);
        if (input == inputs.end()) {
            input = inputs.insert(inputs.end(), operand);
        }
        return -1 - static_cast<std::int32_t>(input - inputs.begin());
    };
    std::vector<std::int32_t> member_of(region.size(), -1);  // by region position
    for (std::size_t position = 0; position < region.size(); ++position) {
        const Node& node = nodes[region[position]];
        if (node.shape() != nodes[root].shape()) {
            continue;  // a link of a spread chain, read through its head
        }
        const OpInfo& info = op_info(node.opcode());
        MapGeometry::Member member{
            &node, {}, {info.kernel_f32, info.kernel_f64, info.kernel<bf16>()}, std::nullopt};
        if (is_broadcast(node)) {
            auto [operand, spread] = spread_of(nodes, region, region[position]);
            member.reads[0] = input_read(operand);
            member.period = period_of(spread);
            member.spread = std::move(spread);
        } else {
            if (kernels_of) {
                const MemberKernels picked = kernels_of(node);
                if (picked.f32 != nullptr && picked.f64 != nullptr) {
                    member.kernels.f32 = picked.f32;
                    member.kernels.f64 = picked.f64;
                }
            }
            const auto operands = node.operands();
            for (std::size_t i = 0; i < operands.size(); ++i) {
                const auto at = std::lower_bound(region.begin(), region.end(), operands[i]);
                member.reads[i] = at != region.end() && *at == operands[i]
                                      ? member_of[static_cast<std::size_t>(at - region.begin())]
                                      : input_read(operands[i]);
            }
        }
        member_of[position] = static_cast<std::int32_t>(geometry.members.size());
        geometry.members.push_back(std::move(member));
    }
    if (sum) {
        const Shape& shape = nodes[root].shape();
        geometry.reduced = MapGeometry::Reduced{shape[shape.rank() - 1]};
        covered.push_back(*sum);
        std::sort(covered.begin(), covered.end());
        return Match{PatternKind::Map,
                     *sum,
                     std::move(covered),
                     {*sum},
                     std::move(inputs),
                     std::move(geometry)};
    }
    if (tail.empty()) {
        return Match{PatternKind::Map,
                     root,
                     std::move(covered),
                     {root},
                     std::move(inputs),
                     std::move(geometry)};
    }
    const Movement movement = grower.movement_of(nodes[tail.back()]);
    geometry.transposed = MapGeometry::Transposed{movement.input[movement.rank - 2],
                                                  movement.input[movement.rank - 1]};
    covered.insert(covered.end(), tail.begin(), tail.end());
    std::sort(covered.begin(), covered.end());
    return Match{PatternKind::Map,
                 tail.back(),
                 std::move(covered),
                 {tail.back()},
                 std::move(inputs),
                 std::move(geometry)};
}

}  // namespace

std::vector<Match> map_regions(const std::vector<Node>& nodes,
                               const std::vector<std::uint32_t>& order,
                               const std::vector<bool>& declared,
                               const std::vector<bool>& retained,
                               const std::vector<bool>& covered,
                               const MemberKernelsOf& kernels_of) {
    RegionGrower grower(nodes, order, declared, retained, covered);
    std::vector<std::vector<std::uint32_t>> regions;
    std::vector<std::vector<std::uint32_t>> tails;
    std::vector<std::optional<std::uint32_t>> sums;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (!grower.can_root(*it)) {
            continue;
        }
        std::vector<std::uint32_t> region = grower.grow(*it);
        const std::optional<std::uint32_t> sum = grower.reduced_tail(*it);
        if (region.size() >= 2 || sum) {
            regions.push_back(std::move(region));
            tails.push_back(sum ? std::vector<std::uint32_t>{} : grower.transposed_tail(*it));
            sums.push_back(sum);
        } else {
            grower.release(*it);
        }
    }
    const std::vector<std::vector<std::uint32_t>> given = grower.spreads_taken_in(regions);
    std::vector<Match> matches;
    for (std::size_t r = regions.size(); r-- > 0;) {
        matches.push_back(map_match(nodes,
                                    regions[r],
                                    grower.covered_by(regions[r], given[r]),
                                    kernels_of,
                                    tails[r],
                                    sums[r],
                                    grower));
    }
    return matches;
}

namespace {

// Elements [first, first + count) of a spread chain's result, read from its
// operand `from`: runs along the innermost merged axis, filled where the chain
// repeats and copied where it does not (stride 1 there).
template <Element T>
void copy_spread(
    const SpreadStrides& spread, const T* from, std::size_t first, std::size_t count, T* out) {
    const std::size_t rank = spread.extents.size();
    std::array<std::size_t, Shape::max_rank> at{};
    std::size_t offset = 0;
    for (std::size_t axis = rank, rest = first; axis-- > 0;) {
        at[axis] = rest % spread.extents[axis];
        rest /= spread.extents[axis];
        offset += at[axis] * spread.strides[axis];
    }
    const std::size_t last = rank - 1;
    while (count > 0) {
        const std::size_t run = std::min(count, spread.extents[last] - at[last]);
        if (spread.strides[last] == 0) {
            std::fill_n(out, run, from[offset]);
        } else {
            std::copy_n(from + offset, run, out);
        }
        out += run;
        count -= run;
        at[last] += run;
        offset += run * spread.strides[last];
        for (std::size_t axis = last; axis > 0 && at[axis] == spread.extents[axis]; --axis) {
            offset -= at[axis] * spread.strides[axis];
            at[axis] = 0;
            ++at[axis - 1];
            offset += spread.strides[axis - 1];
        }
    }
}

// Each periodic spread member's pattern repeated over its period and a block
// more, in `tilings`: the member's elements from any element `first` are those
// of its tiling from `first mod period`. Null for the other members.
template <Element T>
void tile_periods(const MapGeometry& geometry,
                  std::span<const T* const> inputs,
                  std::vector<T>& tilings,
                  std::vector<const T*>& tiling_of) {
    std::size_t total = 0;
    for (const MapGeometry::Member& member : geometry.members) {
        total += member.period == 0 ? 0 : member.period + block_elements;
    }
    tilings.resize(total);
    tiling_of.assign(geometry.members.size(), nullptr);
    T* next = tilings.data();
    for (std::size_t m = 0; m < geometry.members.size(); ++m) {
        const MapGeometry::Member& member = geometry.members[m];
        const std::size_t period = member.period;
        if (period == 0) {
            continue;
        }
        copy_spread(*member.spread,
                    inputs[static_cast<std::size_t>(-1 - member.reads[0])],
                    0,
                    period,
                    next);
        // Doubling: the first k elements, k a multiple of the period, repeat it.
        for (std::size_t k = period; k < period + block_elements; k *= 2) {
            std::copy_n(next, std::min(k, period + block_elements - k), next + k);
        }
        tiling_of[m] = next;
        next += period + block_elements;
    }
}

// Elements [first_element, end_element) of a region, a block at a time: every
// member on each block, in member order, the intermediate blocks in this
// thread's scratch (a periodic spread's read in place from its tiling), the
// last member's from `out` on (`out` holds element first_element).
template <Element T>
void run_elements(const MapGeometry& geometry,
                  std::span<const T* const> inputs,
                  T* out,
                  std::size_t first_element,
                  std::size_t end_element) {
    const std::size_t members = geometry.members.size();
    thread_local std::vector<T> scratch;
    thread_local std::vector<T> tilings;
    thread_local std::vector<const T*> tiling_of;
    scratch.resize(members * block_elements);
    tile_periods(geometry, inputs, tilings, tiling_of);
    std::array<View<T>, Node::max_operands> views{};
    for (std::size_t first = first_element; first < end_element; first += block_elements) {
        const std::size_t count = std::min(block_elements, end_element - first);
        const Shape block{count};
        const auto block_of = [&](std::size_t member) -> const T* {
            const T* tiling = tiling_of[member];
            return tiling != nullptr ? tiling + first % geometry.members[member].period
                                     : scratch.data() + member * block_elements;
        };
        for (std::size_t m = 0; m < members; ++m) {
            const MapGeometry::Member& member = geometry.members[m];
            const bool last = m + 1 == members;
            T* result = last ? out + (first - first_element) : scratch.data() + m * block_elements;
            if (member.spread) {
                if (last || tiling_of[m] == nullptr) {
                    copy_spread(*member.spread,
                                inputs[static_cast<std::size_t>(-1 - member.reads[0])],
                                first,
                                count,
                                result);
                }
                continue;
            }
            const std::size_t arity = member.node->operands().size();
            for (std::size_t i = 0; i < arity; ++i) {
                const std::int32_t read = member.reads[i];
                const T* data = read >= 0 ? block_of(static_cast<std::size_t>(read))
                                          : inputs[static_cast<std::size_t>(-1 - read)] + first;
                views[i] = {data, &block};
            }
            member.template kernel<T>()(
                view_of(*member.node), std::span<const View<T>>(views.data(), arity), result);
        }
    }
}

// Blocks per task when a long region is shared among the pool's threads: the
// elementwise loops' chunk (8,192 elements); regions shorter than four tasks
// stay on the calling thread.
constexpr std::size_t blocks_per_task = elementwise_chunk / block_elements;

// Tasks of `task_count`, on the calling thread where the region is shorter
// than four chunks, else shared among the pool's threads.
template <class Task>
void run_tasks(const MapGeometry& geometry, std::size_t task_count, Task task) {
    if (geometry.elements < 4 * elementwise_chunk) {
        for (std::size_t index = 0; index < task_count; ++index) {
            task(index);
        }
        return;
    }
    ThreadPool::instance().run(task_count, task);
}

// A transposed region: each task runs whole rows of the unmoved matrices (16
// or more at once, so that the transposes move whole tiles) into this thread's
// staging rows, then writes them transposed, matrix by matrix.
template <Element T>
void run_transposed(const MapGeometry& geometry, std::span<const T* const> inputs, T* out) {
    const std::size_t rows = geometry.transposed->rows;
    const std::size_t columns = geometry.transposed->columns;
    const std::size_t all_rows = geometry.elements / columns;
    const std::size_t rows_per_task =
        std::max<std::size_t>(16, elementwise_chunk / columns) / 16 * 16;
    run_tasks(geometry, (all_rows + rows_per_task - 1) / rows_per_task, [&](std::size_t task) {
        const std::size_t first_row = task * rows_per_task;
        const std::size_t end_row = std::min(all_rows, first_row + rows_per_task);
        thread_local std::vector<T> staged;
        staged.resize((end_row - first_row) * columns);
        run_elements(geometry, inputs, staged.data(), first_row * columns, end_row * columns);
        for (std::size_t row = first_row; row < end_row;) {
            const std::size_t matrix = row / rows;
            const std::size_t end = std::min(end_row, (matrix + 1) * rows);
            transpose_rows(staged.data() + (row - first_row) * columns,
                           out + matrix * rows * columns,
                           rows,
                           columns,
                           row - matrix * rows,
                           end - matrix * rows);
            row = end;
        }
    });
}

// The striped sums of `rows` rows of `extent` elements, as Sum computes
// them; a bf16 Sum's are float's over the widened rows, each rounded once.
template <Element T>
void sum_rows(const T* rows, std::size_t count, std::size_t extent, T* out) {
    if constexpr (std::same_as<T, bf16>) {
        thread_local std::vector<float> widened, sums;
        widened.resize(count * extent);
        sums.resize(count);
        widen_row(rows, count * extent, widened.data());
        striped_sums(widened.data(), count, extent, sums.data());
        round_row(sums.data(), count, out);
    } else {
        striped_sums(rows, count, extent, out);
    }
}

// A reduced region: each task runs whole rows into this thread's staging
// rows, then writes their sums.
template <Element T>
void run_reduced(const MapGeometry& geometry, std::span<const T* const> inputs, T* out) {
    const std::size_t extent = geometry.reduced->extent;
    const std::size_t all_rows = geometry.elements / extent;
    const std::size_t rows_per_task = std::max<std::size_t>(1, elementwise_chunk / extent);
    run_tasks(geometry, (all_rows + rows_per_task - 1) / rows_per_task, [&](std::size_t task) {
        const std::size_t first_row = task * rows_per_task;
        const std::size_t end_row = std::min(all_rows, first_row + rows_per_task);
        thread_local std::vector<T> staged;
        staged.resize((end_row - first_row) * extent);
        run_elements(geometry, inputs, staged.data(), first_row * extent, end_row * extent);
        sum_rows(staged.data(), end_row - first_row, extent, out + first_row);
    });
}

template <Element T>
void map_kernel(const Match& match, std::span<const T* const> inputs, std::span<T* const> results) {
    const auto& geometry = match.geometry_as<MapGeometry>();
    T* out = results[0];
    if (geometry.transposed) {
        run_transposed(geometry, inputs, out);
        return;
    }
    if (geometry.reduced) {
        run_reduced(geometry, inputs, out);
        return;
    }
    const std::size_t blocks = (geometry.elements + block_elements - 1) / block_elements;
    const std::size_t elements_per_task = blocks_per_task * block_elements;
    run_tasks(geometry, (blocks + blocks_per_task - 1) / blocks_per_task, [&](std::size_t task) {
        const std::size_t first = task * elements_per_task;
        run_elements(geometry,
                     inputs,
                     out + first,
                     first,
                     std::min(geometry.elements, first + elements_per_task));
    });
}

}  // namespace

// A Map is a loop fusion with no named StableHLO operation: its members emit
// their own operations.
PatternRow map_row() {
    return {.kind = PatternKind::Map,
            .kernel_f32 = map_kernel<float>,
            .kernel_f64 = map_kernel<double>,
            .kernel_bf16 = map_kernel<bf16>};
}

}  // namespace topos::detail
