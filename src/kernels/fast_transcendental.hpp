// The Fast numerics' float transcendentals over whole buffers (fast_math.hpp):
// the loops compiled for AVX-512F or AVX2 + FMA where the processor has them,
// the same bits on every instruction set. Long buffers are shared among the
// pool's threads.
#pragma once

#include "kernels/transcendental.hpp"
#include <topos/core/isa.hpp>

#include <cstddef>

namespace topos::detail {

// out[i] = fast::f(x[i]) for i < count; out may be x.
void fast_map(ExactFunction f, const float* x, float* out, std::size_t count);

// The same on the calling thread with the instruction set `set` (the caller
// checks that the processor runs it).
void fast_map_on(Isa set, ExactFunction f, const float* x, float* out, std::size_t count);

// fast::f(x) for one element.
float fast_of(ExactFunction f, float x);

}  // namespace topos::detail
