// The C library's allocator settings for a process that imports topos. A
// training step frees and allocates the same large buffers (parameters,
// gradients, optimizer state) every step. glibc raises its thresholds for
// serving those from the heap only as it sees large blocks freed, so whether
// a step reuses memory or maps, faults in and returns fresh pages each time
// (twice as slow for the gallery's digits MLP, measured) depends on what the
// process freed before. Importing topos sets the thresholds to the ceiling
// glibc's own rule reaches (32 MiB, and a heap top of 64 MiB kept), unless
// the environment sets them (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_)
// or TOPOS_KEEP_MALLOC_SETTINGS is set.
#include "module.hpp"

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace topos::python {

bool settle_allocator() {
#if defined(__GLIBC__)
    if (std::getenv("TOPOS_KEEP_MALLOC_SETTINGS") != nullptr ||
        std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr ||
        std::getenv("MALLOC_TRIM_THRESHOLD_") != nullptr) {
        return false;
    }
    constexpr int largest_heap_block = 32 << 20;  // glibc's DEFAULT_MMAP_THRESHOLD_MAX
    return mallopt(M_MMAP_THRESHOLD, largest_heap_block) == 1 &&
           mallopt(M_TRIM_THRESHOLD, 2 * largest_heap_block) == 1;
#else
    return false;
#endif
}

}  // namespace topos::python
