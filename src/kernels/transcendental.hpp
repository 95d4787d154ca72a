// The exact exp, tanh, sigmoid, erf, gelu, log and softplus over whole
// buffers, in vector lanes where the processor has them (AVX2 + FMA: 4
// doubles; AVX-512F: 8), each lane computing exactly what core/exact_math
// computes for its element, so the bits are the scalar functions' on every
// instruction set (the algorithm is in exact_lanes.hpp). Float arguments try
// a cheaper evaluation first, kept only where it decides the float's bits
// (float_shortcut.hpp). Long buffers are shared among the pool's threads.
#pragma once

#include <topos/core/isa.hpp>
#include <topos/core/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace topos::detail {

enum class ExactFunction : std::uint8_t {
    Exp,
    Tanh,
    Sigmoid,
    Erf,
    Gelu,
    Log,
    Softplus
};

// Every ExactFunction, in declaration order.
inline constexpr ExactFunction every_exact_function[] = {ExactFunction::Exp,
                                                         ExactFunction::Tanh,
                                                         ExactFunction::Sigmoid,
                                                         ExactFunction::Erf,
                                                         ExactFunction::Gelu,
                                                         ExactFunction::Log,
                                                         ExactFunction::Softplus};

// "exp", "tanh", "sigmoid", "erf", "gelu", "log", "softplus".
std::string_view name_of(ExactFunction f);

// out[i] = f(x[i]) for i < count, with the bits of exact::exp, exact::tanh,
// exact::sigmoid, exact::erf, exact::gelu, exact::log or exact::softplus; out
// may be x.
template <Element T>
void exact_map(ExactFunction f, const T* x, T* out, std::size_t count);

// The same on the calling thread, with the instruction set topos::isa() names:
// for short buffers of callers that are already shared among threads.
template <Element T>
void exact_map_on_this_thread(ExactFunction f, const T* x, T* out, std::size_t count);

// The same on one thread with the instruction set `set` (the tests and the
// tools compare them; the caller checks that the processor runs it): portable
// is the scalar functions' loop.
template <Element T>
void exact_map_on(Isa set, ExactFunction f, const T* x, T* out, std::size_t count);

template <Element T>
void exact_map_portable(ExactFunction f, const T* x, T* out, std::size_t count);

#if defined(__x86_64__)
void exact_map_avx2(ExactFunction f, const float* x, float* out, std::size_t count);
void exact_map_avx2(ExactFunction f, const double* x, double* out, std::size_t count);
void exact_map_avx512(ExactFunction f, const float* x, float* out, std::size_t count);
void exact_map_avx512(ExactFunction f, const double* x, double* out, std::size_t count);
#endif

}  // namespace topos::detail
