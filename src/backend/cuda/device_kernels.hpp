// The CUDA backend's kernels on device memory, with a plain interface (pointers
// and extents) so the .cu files need none of the library's headers. Every
// launch goes to the default stream; pointers are device pointers; a launch
// over zero elements does nothing. Errors throw std::runtime_error.
#pragma once

#include <cstddef>
#include <cstdint>

namespace topos::detail::cuda {

enum class UnaryOp : std::uint8_t {
    Neg,
    Abs,
    Sign,
    Exp,
    Expm1,
    Log,
    Log1p,
    Sqrt,
    Rsqrt,
    Square,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
};

enum class BinaryOp : std::uint8_t {
    Add,
    Sub,
    Mul,
    Div,
    Maximum,
    Minimum,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
};

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

template <class T>
void unary(UnaryOp op, const T* x, T* out, std::size_t count);

template <class T>
void binary(BinaryOp op, const T* a, const T* b, T* out, std::size_t count);

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
