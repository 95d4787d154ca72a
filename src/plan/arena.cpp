#include "plan/arena.hpp"

#include <algorithm>
#include <numeric>

namespace topos::detail {
namespace {

struct Placed {
    std::size_t offset;
    std::size_t end;  // offset + rounded size
    std::size_t last;
};

std::size_t round_up(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

ArenaAssignment assign_arena(const std::vector<BufferInterval>& intervals, std::size_t alignment) {
    std::vector<std::size_t> order(intervals.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::ranges::stable_sort(order, {}, [&](std::size_t i) { return intervals[i].first; });
    ArenaAssignment assignment;
    assignment.offsets.resize(intervals.size());
    std::vector<Placed> live;  // sorted by offset
    for (std::size_t i : order) {
        const BufferInterval& interval = intervals[i];
        std::erase_if(live, [&](const Placed& placed) { return placed.last < interval.first; });
        const std::size_t size = round_up(std::max<std::size_t>(interval.elements, 1), alignment);
        std::size_t offset = 0;
        auto slot = live.begin();
        for (; slot != live.end(); ++slot) {
            if (slot->offset >= offset + size) {
                break;
            }
            offset = std::max(offset, slot->end);
        }
        live.insert(slot, Placed{offset, offset + size, interval.last});
        assignment.offsets[i] = offset;
        assignment.elements = std::max(assignment.elements, offset + size);
    }
    return assignment;
}

}  // namespace topos::detail
