// schedule_of (each scheduled node's position and the position of its last
// reader) and live_volume, the elements alive at every position, made linear
// in the schedule by a difference array and one prefix sum, with its peak and
// the retain-all total.
#include "plan/liveness.hpp"

#include <algorithm>

namespace topos::detail {

Schedule schedule_of(const std::vector<Node>& nodes, const std::vector<bool>& scheduled) {
    Schedule schedule;
    schedule.position.assign(nodes.size(), -1);
    schedule.last_read.assign(nodes.size(), -1);
    for (std::size_t index = 0; index < scheduled.size(); ++index) {
        if (!scheduled[index]) {
            continue;
        }
        const auto position = static_cast<std::int32_t>(schedule.order.size());
        schedule.position[index] = position;
        schedule.order.push_back(static_cast<std::uint32_t>(index));
        for (std::uint32_t operand : nodes[index].operands()) {
            schedule.last_read[operand] = position;
        }
    }
    return schedule;
}

std::size_t live_until(const Schedule& schedule, std::size_t position, const Liveness& liveness) {
    switch (liveness.kind) {
        case Liveness::Kind::Freed:
        case Liveness::Kind::Releasable:
            return static_cast<std::size_t>(schedule.position[liveness.after]);
        case Liveness::Kind::Kept:
        case Liveness::Kind::Retained:
            return std::max(position, schedule.order.size() - 1);
        case Liveness::Kind::Fused:
            break;
    }
    return position;
}

// Each value adds its elements over a run of positions: a difference array
// (add where the run starts, take away after it ends) and one prefix sum make
// the series linear in the schedule, however long the values stay alive.
LiveVolume live_volume(const std::vector<Node>& nodes,
                       const Schedule& schedule,
                       const std::vector<Liveness>& liveness) {
    LiveVolume volume;
    const std::size_t length = schedule.order.size();
    std::vector<std::size_t> change(length + 1, 0);  // modulo 2^64; every prefix sum is exact
    for (std::size_t position = 0; position < length; ++position) {
        if (liveness[position].kind == Liveness::Kind::Fused) {
            continue;  // never materialised
        }
        const std::size_t elements = nodes[schedule.order[position]].shape().elements();
        volume.retain_all += elements;
        const std::size_t until = live_until(schedule, position, liveness[position]);
        if (until >= position) {
            change[position] += elements;
            change[until + 1] -= elements;
        }
    }
    volume.series.resize(length);
    std::size_t live = 0;
    for (std::size_t p = 0; p < length; ++p) {
        live += change[p];
        volume.series[p] = live;
        if (live > volume.peak) {
            volume.peak = live;
            volume.peak_position = p;
        }
    }
    return volume;
}

}  // namespace topos::detail
