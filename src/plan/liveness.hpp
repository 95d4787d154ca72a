// Liveness and the live-volume accounting of a schedule (docs/guide/
// entries-and-plans.md): each scheduled value counts its elements from its own
// position through the position its liveness names (its last reader for
// Freed and Releasable; the end for Kept and Retained).
#pragma once

#include <topos/plan/plan.hpp>

#include <cstdint>
#include <vector>

namespace topos::detail {

struct Schedule {
    std::vector<std::uint32_t> order;    // node indices, ascending
    std::vector<std::int32_t> position;  // by node index: position in `order`, or -1
    std::vector<std::int32_t>
        last_read;  // by node index: position of the last scheduled reader, or -1
};

Schedule schedule_of(const std::vector<Node>& nodes, const std::vector<bool>& scheduled);

// The position through which a value at `position` with `liveness` counts.
std::size_t live_until(const Schedule& schedule, std::size_t position, const Liveness& liveness);

struct LiveVolume {
    std::vector<std::size_t> series;
    std::size_t peak = 0;
    std::size_t peak_position = 0;
    std::size_t retain_all = 0;
};

LiveVolume live_volume(const std::vector<Node>& nodes,
                       const Schedule& schedule,
                       const std::vector<Liveness>& liveness);

}  // namespace topos::detail
