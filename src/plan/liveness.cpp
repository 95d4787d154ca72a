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

LiveVolume live_volume(const std::vector<Node>& nodes,
                       const Schedule& schedule,
                       const std::vector<Liveness>& liveness) {
    LiveVolume volume;
    volume.series.assign(schedule.order.size(), 0);
    for (std::size_t position = 0; position < schedule.order.size(); ++position) {
        if (liveness[position].kind == Liveness::Kind::Fused) {
            continue;  // never materialised
        }
        const std::size_t elements = nodes[schedule.order[position]].shape().elements();
        volume.retain_all += elements;
        const std::size_t until = live_until(schedule, position, liveness[position]);
        for (std::size_t p = position; p <= until; ++p) {
            volume.series[p] += elements;
        }
    }
    for (std::size_t p = 0; p < volume.series.size(); ++p) {
        if (volume.series[p] > volume.peak) {
            volume.peak = volume.series[p];
            volume.peak_position = p;
        }
    }
    return volume;
}

}  // namespace topos::detail
