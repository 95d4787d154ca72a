// The most heap a call holds at once: benchmarks linking bench/heap_peak.cpp
// count every operator new and delete of the process, and measure_heap runs a
// call once per iteration, recording beside its time heap_peak_MiB (the most
// heap the call held at once beyond what was live before it) and rss_MiB (the
// process's peak resident set so far).
#pragma once

#include "peak_memory.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>

namespace bench {

// Bytes live on the heap now, and the most since reset_heap_peak().
std::size_t heap_live_bytes();
std::size_t heap_peak_bytes();
void reset_heap_peak();

template <class Call>
void measure_heap(benchmark::State& state, Call call) {
    double heap_peak = 0;
    for (auto _ : state) {
        const std::size_t before = heap_live_bytes();
        reset_heap_peak();
        call();
        heap_peak = std::max(heap_peak, static_cast<double>(heap_peak_bytes() - before));
    }
    state.counters["heap_peak_MiB"] = heap_peak / (1024.0 * 1024.0);
    state.counters["rss_MiB"] = peak_resident_mib();
}

}  // namespace bench
