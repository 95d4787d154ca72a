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

// The Fast lanes' exp and log for the rows of a log-sum-exp
// (ops/log_sum_exp.hpp), on the calling thread.
struct FastExpAndLog {
    Isa set = isa();

    void exp_in_place(float* terms, std::size_t count) const {
        fast_map_on(set, ExactFunction::Exp, terms, terms, count);
    }

    float log(float sum) const { return fast_of(ExactFunction::Log, sum); }
};

}  // namespace topos::detail
