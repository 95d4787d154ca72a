// Buffer assignment: every intermediate value gets an offset in one arena, from
// the liveness intervals of the schedule. Values whose intervals overlap (both
// ends inclusive: a value is alive while its last reader runs) never share
// memory, so a kernel's output never aliases its operands.
#pragma once

#include <cstddef>
#include <vector>

namespace topos::detail {

struct BufferInterval {
    std::size_t first;     // position that writes it
    std::size_t last;      // position of its last reader
    std::size_t elements;  // size
};

struct ArenaAssignment {
    std::vector<std::size_t> offsets;  // by interval, in elements
    std::size_t elements = 0;          // the arena's size
};

// First fit by offset over intervals in order of their first position; every
// offset is a multiple of `alignment` elements. O(n log n) in the intervals.
ArenaAssignment assign_arena(const std::vector<BufferInterval>& intervals, std::size_t alignment);

}  // namespace topos::detail
