// The library's one thread pool: how many threads the exact kernels split their
// independent output tiles over. The count is the calling thread plus
// threads() - 1 workers. Results never depend on it: every output element is
// computed by one thread in the one documented order, so any thread count gives
// the same bits.
#pragma once

#include <cstddef>

namespace topos {

// The number of threads a parallel kernel uses (>= 1). Before any call to
// set_threads, it is the TOPOS_THREADS environment variable when that holds a
// positive integer, else the hardware's thread count.
std::size_t threads();

// Sets the number of threads the kernels use from now on; 0 restores the
// default above. Blocks until no parallel kernel is running, then replaces the
// pool's workers. Safe to call from any thread (not from inside a kernel).
void set_threads(std::size_t count);

}  // namespace topos
