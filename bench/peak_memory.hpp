// The process's peak resident set size, as the kernel accounts it.
#pragma once

#include <sys/resource.h>

namespace bench {

inline double peak_resident_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace bench
