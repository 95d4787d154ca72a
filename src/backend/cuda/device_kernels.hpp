// The CUDA backend's kernels on device memory, with a plain interface (the
// opcodes, pointers and extents) so the .cu files need no more of the library
// than its opcode list. Every launch goes to the default stream; pointers are
// device pointers; a launch over zero elements does nothing. Errors throw
// std::runtime_error.
#pragma once

#include <topos/ops/opcode.hpp>

#include <cstddef>
#include <cstdint>

namespace topos::detail::cuda {

// A shape seen as [outer, extent, inner] around one axis.
struct Split {
    std::size_t outer;
    std::size_t extent;
    std::size_t inner;
};

inline constexpr std::size_t max_rank = 8;

// A permutation's walk: output axis i has extent extents[i] and advances the
// input by strides[i] elements.
struct PermuteWalk {
    std::size_t rank;
    std::size_t extents[max_rank];
    std::size_t strides[max_rank];
};

// Whether the device has a formula for the elementwise opcode `opcode` (one
// operand or two, no attributes); the host's reference kernel serves the others.
bool has_device_formula(Opcode opcode);

// out[i] = formula(operands[0][i] (, operands[1][i])) for an opcode with a
// device formula.
template <class T>
void map(Opcode opcode, const T* const* operands, T* out, std::size_t count);

// 1 where `direction` holds between a[i] and b[i], else 0.
template <class T>
void compare(Comparison direction, const T* a, const T* b, T* out, std::size_t count);

// mask != 0 ? a : b
template <class T>
void select(const T* mask, const T* a, const T* b, T* out, std::size_t count);

// out[o, i] = sum over e of x[o, e, i], each sum from -0.
template <class T>
void sum_along(const T* x, Split split, T* out);

// out[o, i] = max over e of x[o, e, i], from -infinity; a NaN propagates.
template <class T>
void max_along(const T* x, Split split, T* out);

// out[o, e, i] = x[o, e, i] - (m + log(sum over e of exp(x[o, e, i] - m))), m the max.
template <class T>
void log_softmax_along(const T* x, Split split, T* out);

// out[o, e, i] = x[o, i]
template <class T>
void broadcast_along(const T* x, Split split, T* out);

template <class T>
void permute(const T* x, const PermuteWalk& walk, T* out);

template <class T>
void copy(const T* x, T* out, std::size_t count);

// Row-major products out[b] = a[b] (rows x depth) times b[b] (depth x columns),
// through cuBLAS on this thread's handle.
template <class T>
void gemm(const T* a,
          const T* b,
          T* out,
          std::size_t batches,
          std::size_t rows,
          std::size_t depth,
          std::size_t columns);

}  // namespace topos::detail::cuda
