// The kernels the dispatcher picks on this processor, as one line for a
// benchmark's context (bench/compare prints it beside the processor): the
// GEMM micro-kernel and the exact transcendental lanes take the best
// instruction set topos::isa() allows, and the elementwise loops run their
// AVX2 + FMA copies from AVX2 up (the Fast lanes too, AVX-512's where the
// processor has it). It ends with the backends compiled in that may reorder
// sums or approximate functions under Numerics::Fast ("Fast backends none": a
// Fast plan is then the Exact plan).
#pragma once

#include <topos/backend/backend.hpp>
#include <topos/core/isa.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace bench {

inline std::string kernels_picked() {
    const topos::Isa set = topos::isa();
    const std::string vector(topos::name_of(set));
    std::string fast_backends;
    for (const topos::BackendInfo& backend : topos::Backend::available()) {
        if (backend.fidelity != topos::Fidelity::Exact) {
            fast_backends += (fast_backends.empty() ? "" : "+") + backend.name;
        }
    }
    return "GEMM micro-kernel " + vector + ", exact transcendental lanes " + vector +
           ", elementwise loops " + (set >= topos::Isa::Avx2 ? "avx2+fma" : "portable") +
           ", Fast backends " + (fast_backends.empty() ? "none" : fast_backends);
}

// Adds "topos_kernels" to the JSON output's context.
inline void add_kernels_context() {
    benchmark::AddCustomContext("topos_kernels", kernels_picked());
}

}  // namespace bench
