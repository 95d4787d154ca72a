// assign_arena: buffers placed in order of their first use at the lowest
// offset that fits among those still alive (first fit), each buffer released
// after its last reader. The live buffers are kept in a treap by offset that
// knows its widest gap, so each placement is logarithmic.
#include "plan/arena.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace topos::detail {
namespace {

std::size_t round_up(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// The buffers alive at once never overlap, so in offset order their ends rise
// too, and first fit is the lowest gap between neighbours that is wide enough.
// A scan of every live buffer per placement is quadratic when many stay alive
// (a recorded gradient keeps its forward values), so the live buffers sit in a
// treap by offset in which each knows the gap below it and the widest gap of
// its subtree: placing, freeing and finding the first fit are logarithmic.
class LiveBuffers {
public:
    explicit LiveBuffers(std::size_t capacity) : tree_(capacity) {}

    // The offset first fit gives `size` elements: the lowest gap that holds
    // them, else the end of the highest buffer.
    std::size_t first_fit(std::size_t size) const {
        for (std::uint32_t at = root_; at != none;) {
            const TreeNode& node = tree_[at];
            if (widest(node.lower) >= size) {
                at = node.lower;
            } else if (node.gap >= size) {
                return node.offset - node.gap;
            } else {
                at = node.higher;
            }
        }
        return highest_end(root_);
    }

    void place(std::uint32_t buffer, std::size_t offset, std::size_t end) {
        auto [lower, higher] = split(root_, offset);
        TreeNode& node = tree_[buffer];
        node = TreeNode{offset, end, offset - highest_end(lower), 0, priority_of(buffer)};
        refresh(buffer);
        set_lowest_gap(higher, end);
        root_ = merge(merge(lower, buffer), higher);
    }

    void release(std::uint32_t buffer) {
        const std::size_t offset = tree_[buffer].offset;
        auto [lower, rest] = split(root_, offset);
        const std::uint32_t higher = split(rest, offset + 1).second;
        set_lowest_gap(higher, highest_end(lower));
        root_ = merge(lower, higher);
    }

private:
    static constexpr std::uint32_t none = UINT32_MAX;

    struct TreeNode {
        std::size_t offset = 0;
        std::size_t end = 0;
        std::size_t gap = 0;     // free elements between the next lower buffer (or 0) and this one
        std::size_t widest = 0;  // the widest gap in this subtree
        std::uint64_t priority = 0;
        std::uint32_t lower = none;
        std::uint32_t higher = none;
    };

    // A fixed hash, so the tree's shape (never its answers) is reproducible.
    static std::uint64_t priority_of(std::uint32_t buffer) {
        std::uint64_t z = buffer + 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

    std::size_t widest(std::uint32_t at) const { return at == none ? 0 : tree_[at].widest; }

    void refresh(std::uint32_t at) {
        TreeNode& node = tree_[at];
        node.widest = std::max({node.gap, widest(node.lower), widest(node.higher)});
    }

    std::size_t highest_end(std::uint32_t at) const {
        if (at == none) {
            return 0;
        }
        while (tree_[at].higher != none) {
            at = tree_[at].higher;
        }
        return tree_[at].end;
    }

    // The lowest buffer of the subtree at `at` now has `below` as its lower neighbour's end.
    void set_lowest_gap(std::uint32_t at, std::size_t below) {
        if (at == none) {
            return;
        }
        TreeNode& node = tree_[at];
        if (node.lower == none) {
            node.gap = node.offset - below;
        } else {
            set_lowest_gap(node.lower, below);
        }
        refresh(at);
    }

    // The subtree at `at` split into the buffers below `offset` and the rest.
    std::pair<std::uint32_t, std::uint32_t> split(std::uint32_t at, std::size_t offset) {
        if (at == none) {
            return {none, none};
        }
        TreeNode& node = tree_[at];
        if (node.offset < offset) {
            const auto [lower, higher] = split(node.higher, offset);
            tree_[at].higher = lower;
            refresh(at);
            return {at, higher};
        }
        const auto [lower, higher] = split(node.lower, offset);
        tree_[at].lower = higher;
        refresh(at);
        return {lower, at};
    }

    // Every buffer of `lower` lies below every buffer of `higher`.
    std::uint32_t merge(std::uint32_t lower, std::uint32_t higher) {
        if (lower == none || higher == none) {
            return lower == none ? higher : lower;
        }
        if (tree_[lower].priority > tree_[higher].priority) {
            tree_[lower].higher = merge(tree_[lower].higher, higher);
            refresh(lower);
            return lower;
        }
        tree_[higher].lower = merge(lower, tree_[higher].lower);
        refresh(higher);
        return higher;
    }

    std::vector<TreeNode> tree_;  // by buffer
    std::uint32_t root_ = none;
};

// The live buffers by the last position that reads them, soonest first.
using Expiry = std::pair<std::size_t, std::uint32_t>;
using ExpiryQueue = std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>>;

}  // namespace

ArenaAssignment assign_arena(const std::vector<BufferInterval>& intervals, std::size_t alignment) {
    std::vector<std::uint32_t> order(intervals.size());
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return intervals[a].first < intervals[b].first;
    });
    ArenaAssignment assignment;
    assignment.offsets.resize(intervals.size());
    LiveBuffers live(intervals.size());
    ExpiryQueue expiring;
    for (std::uint32_t i : order) {
        const BufferInterval& interval = intervals[i];
        for (; !expiring.empty() && expiring.top().first < interval.first; expiring.pop()) {
            live.release(expiring.top().second);
        }
        const std::size_t size = round_up(std::max<std::size_t>(interval.elements, 1), alignment);
        const std::size_t offset = live.first_fit(size);
        live.place(i, offset, offset + size);
        expiring.emplace(interval.last, i);
        assignment.offsets[i] = offset;
        assignment.elements = std::max(assignment.elements, offset + size);
    }
    return assignment;
}

}  // namespace topos::detail
