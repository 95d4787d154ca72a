// Map: a region of elementwise operations run as one loop over blocks of
// elements. Every member runs its own reference kernel on each block, so each
// element sees exactly the operations the unfused plan performs, and the
// intermediates live in a block-sized scratch instead of the arena.
#include "pattern/map.hpp"

#include "core/thread_pool.hpp"
#include "graph/node_view.hpp"
#include "pattern/catalog.hpp"

#include <algorithm>
#include <limits>
#include <queue>

namespace topos::detail {
namespace {

// Elementwise members in node order, each reading inputs of the match or
// earlier members; all of one element count. The kernel runs the members' own
// kernels a block of elements at a time, so intermediates stay in a small
// scratch and every element sees the same operations as unfused.
struct MapGeometry {
    struct Member {
        const Node* node;
        std::array<std::int32_t, Node::max_operands> reads{};  // >= 0: member; < 0: input -1 - k
        MemberKernels kernels;

        template <Element T>
        Kernel<T> kernel() const {
            if constexpr (std::same_as<T, float>) {
                return kernels.f32;
            } else {
                return kernels.f64;
            }
        }
    };

    std::vector<Member> members;
    std::size_t elements = 0;
};

bool is_elementwise(Opcode opcode) {
    return op_info(opcode).kind == OpKind::Elementwise;
}

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
            if (in_region_[candidate] || !absorbable(candidate, root)) {
                continue;
            }
            in_region_[candidate] = true;
            root_of_[candidate] = root;
            region.push_back(candidate);
            offer_operands(candidate);
        }
        std::sort(region.begin(), region.end());
        if (region.size() < 2) {
            in_region_[root] = false;
            root_of_[root] = no_region;
        }
        return region;
    }

private:
    // A member no region reads from outside: every reader is in this region
    // (a reader in another region would find the value never written).
    bool absorbable(std::uint32_t index, std::uint32_t root) const {
        const Node& node = nodes_[index];
        if (covered_[index] || declared_[index] || retained_[index] ||
            !is_elementwise(node.opcode()) || node.shape() != nodes_[root].shape()) {
            return false;
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

Match map_match(const std::vector<Node>& nodes,
                const std::vector<std::uint32_t>& region,
                const MemberKernelsOf& kernels_of) {
    const std::uint32_t root = region.back();
    MapGeometry geometry;
    geometry.elements = nodes[root].shape().elements();
    std::vector<std::uint32_t> inputs;
    for (std::uint32_t index : region) {
        const OpInfo& info = op_info(nodes[index].opcode());
        MapGeometry::Member member{&nodes[index], {}, {info.kernel_f32, info.kernel_f64}};
        if (kernels_of) {
            const MemberKernels picked = kernels_of(nodes[index]);
            if (picked.f32 != nullptr && picked.f64 != nullptr) {
                member.kernels = picked;
            }
        }
        const auto operands = nodes[index].operands();
        for (std::size_t i = 0; i < operands.size(); ++i) {
            const auto at = std::lower_bound(region.begin(), region.end(), operands[i]);
            if (at != region.end() && *at == operands[i]) {
                member.reads[i] = static_cast<std::int32_t>(at - region.begin());
                continue;
            }
            auto input = std::find(inputs.begin(), inputs.end(), operands[i]);
            if (input == inputs.end()) {
                input = inputs.insert(inputs.end(), operands[i]);
            }
            member.reads[i] = -1 - static_cast<std::int32_t>(input - inputs.begin());
        }
        geometry.members.push_back(member);
    }
    return Match{PatternKind::Map, root, region, {root}, std::move(inputs), std::move(geometry)};
}

constexpr std::size_t block_elements = 512;

}  // namespace

std::vector<Match> map_regions(const std::vector<Node>& nodes,
                               const std::vector<std::uint32_t>& order,
                               const std::vector<bool>& declared,
                               const std::vector<bool>& retained,
                               const std::vector<bool>& covered,
                               const MemberKernelsOf& kernels_of) {
    RegionGrower grower(nodes, order, declared, retained, covered);
    std::vector<Match> matches;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (!grower.can_root(*it)) {
            continue;
        }
        const std::vector<std::uint32_t> region = grower.grow(*it);
        if (region.size() >= 2) {
            matches.push_back(map_match(nodes, region, kernels_of));
        }
    }
    std::reverse(matches.begin(), matches.end());
    return matches;
}

namespace {

// Blocks [first_block, end_block) of a region: every member on each block, in
// member order, the intermediate blocks in this thread's scratch.
template <Element T>
void run_blocks(const MapGeometry& geometry,
                std::span<const T* const> inputs,
                T* out,
                std::size_t first_block,
                std::size_t end_block) {
    const std::size_t members = geometry.members.size();
    thread_local std::vector<T> scratch;
    scratch.resize(members * block_elements);
    std::array<View<T>, Node::max_operands> views{};
    for (std::size_t b = first_block; b < end_block; ++b) {
        const std::size_t first = b * block_elements;
        const std::size_t count = std::min(block_elements, geometry.elements - first);
        const Shape block{count};
        for (std::size_t m = 0; m < members; ++m) {
            const MapGeometry::Member& member = geometry.members[m];
            const std::size_t arity = member.node->operands().size();
            for (std::size_t i = 0; i < arity; ++i) {
                const std::int32_t read = member.reads[i];
                const T* data =
                    read >= 0 ? scratch.data() + static_cast<std::size_t>(read) * block_elements
                              : inputs[static_cast<std::size_t>(-1 - read)] + first;
                views[i] = {data, &block};
            }
            T* result = m + 1 == members ? out + first : scratch.data() + m * block_elements;
            member.template kernel<T>()(
                view_of(*member.node), std::span<const View<T>>(views.data(), arity), result);
        }
    }
}

// Blocks per task when a long region is shared among the pool's threads (16,384
// elements); regions shorter than four tasks stay on the calling thread.
constexpr std::size_t blocks_per_task = 32;

template <Element T>
void map_kernel(const Match& match, std::span<const T* const> inputs, std::span<T* const> results) {
    const auto& geometry = match.geometry_as<MapGeometry>();
    T* out = results[0];
    const std::size_t blocks = (geometry.elements + block_elements - 1) / block_elements;
    if (blocks < 4 * blocks_per_task) {
        run_blocks(geometry, inputs, out, 0, blocks);
        return;
    }
    ThreadPool::instance().run(
        (blocks + blocks_per_task - 1) / blocks_per_task, [&](std::size_t task) {
            const std::size_t first = task * blocks_per_task;
            run_blocks(geometry, inputs, out, first, std::min(blocks, first + blocks_per_task));
        });
}

}  // namespace

// A Map is a loop fusion with no named StableHLO operation: its members emit
// their own operations.
PatternRow map_row() {
    return {.kind = PatternKind::Map,
            .kernel_f32 = map_kernel<float>,
            .kernel_f64 = map_kernel<double>};
}

}  // namespace topos::detail
