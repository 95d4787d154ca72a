// Reductions along one axis of [outer, extent, inner]. A contiguous axis
// (inner 1) gets one block per output, its threads striding the row and
// folding in shared memory; otherwise each thread reduces one output column,
// neighbouring threads reading neighbouring elements. Sums are in this order,
// not the reference's striped one (Fidelity::Reordered).
#include "backend/cuda/device_kernels.hpp"
#include "backend/cuda/launch.cuh"

#include <cuda/std/limits>

namespace topos::detail::cuda {
namespace {

struct Plus {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return a + b;
    }

    template <class T>
    __device__ static T identity() {
        return T(-0.0);  // the exact additive identity
    }
};

// The greater of two, a NaN winning: the reference Max's rule.
struct Greatest {
    template <class T>
    __device__ T operator()(T best, T term) const {
        return (term > best || term != term) ? term : best;
    }

    template <class T>
    __device__ static T identity() {
        return -::cuda::std::numeric_limits<T>::infinity();
    }
};

// Every thread of the block contributes `value`; every thread gets the fold.
template <class T, class Op>
__device__ T block_fold(T value, Op op, T* shared) {
    shared[threadIdx.x] = value;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + half]);
        }
        __syncthreads();
    }
    const T result = shared[0];
    __syncthreads();
    return result;
}

template <class T, class Op>
__device__ T fold_row(const T* row, std::size_t extent, Op op, T* shared) {
    T partial = Op::template identity<T>();
    for (std::size_t e = threadIdx.x; e < extent; e += blockDim.x) {
        partial = op(partial, row[e]);
    }
    return block_fold(partial, op, shared);
}

template <class T, class Op>
__global__ void reduce_rows(const T* x, std::size_t rows, std::size_t extent, T* out, Op op) {
    __shared__ T shared[threads_per_block];
    for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T total = fold_row(x + row * extent, extent, op, shared);
        if (threadIdx.x == 0) {
            out[row] = total;
        }
    }
}

template <class T, class Op>
__global__ void reduce_columns(const T* x, Split split, T* out, Op op) {
    const std::size_t outputs = split.outer * split.inner;
    for (std::size_t k = first_index(); k < outputs; k += grid_stride()) {
        const T* column = x + (k / split.inner) * split.extent * split.inner + k % split.inner;
        T total = Op::template identity<T>();
        for (std::size_t e = 0; e < split.extent; ++e) {
            total = op(total, column[e * split.inner]);
        }
        out[k] = total;
    }
}

// m + log(sum exp(x - m)) from the max m and the sum; an infinite or NaN max
// is the normaliser itself, as in the reference.
template <class T>
__device__ T normaliser_of(T top, T total) {
    return isfinite(top) ? top + log(total) : top;
}

template <class T>
__global__ void log_softmax_rows(const T* x, std::size_t rows, std::size_t extent, T* out) {
    __shared__ T shared[threads_per_block];
    for (std::size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = x + r * extent;
        const T top = fold_row(row, extent, Greatest{}, shared);
        T partial = T(-0.0);
        for (std::size_t e = threadIdx.x; e < extent; e += blockDim.x) {
            partial += exp(row[e] - top);
        }
        const T normaliser = normaliser_of(top, block_fold(partial, Plus{}, shared));
        for (std::size_t e = threadIdx.x; e < extent; e += blockDim.x) {
            out[r * extent + e] = row[e] - normaliser;
        }
    }
}

template <class T>
__global__ void log_softmax_columns(const T* x, Split split, T* out) {
    const std::size_t columns = split.outer * split.inner;
    for (std::size_t k = first_index(); k < columns; k += grid_stride()) {
        const std::size_t base = (k / split.inner) * split.extent * split.inner + k % split.inner;
        T top = Greatest::identity<T>();
        for (std::size_t e = 0; e < split.extent; ++e) {
            top = Greatest{}(top, x[base + e * split.inner]);
        }
        T total = T(-0.0);
        for (std::size_t e = 0; e < split.extent; ++e) {
            total += exp(x[base + e * split.inner] - top);
        }
        const T normaliser = normaliser_of(top, total);
        for (std::size_t e = 0; e < split.extent; ++e) {
            out[base + e * split.inner] = x[base + e * split.inner] - normaliser;
        }
    }
}

template <class T, class Op>
void reduce(const T* x, Split split, T* out, Op op) {
    if (split.outer * split.inner == 0) {
        return;
    }
    if (split.inner == 1) {
        reduce_rows<<<blocks_for(split.outer * threads_per_block), threads_per_block>>>(
            x, split.outer, split.extent, out, op);
    } else {
        reduce_columns<<<blocks_for(split.outer * split.inner), threads_per_block>>>(
            x, split, out, op);
    }
    check_launch("reduction kernel");
}

}  // namespace

template <class T>
void sum_along(const T* x, Split split, T* out) {
    reduce(x, split, out, Plus{});
}

template <class T>
void max_along(const T* x, Split split, T* out) {
    reduce(x, split, out, Greatest{});
}

template <class T>
void log_softmax_along(const T* x, Split split, T* out) {
    if (split.outer * split.extent * split.inner == 0) {
        return;
    }
    if (split.inner == 1) {
        log_softmax_rows<<<blocks_for(split.outer * threads_per_block), threads_per_block>>>(
            x, split.outer, split.extent, out);
    } else {
        log_softmax_columns<<<blocks_for(split.outer * split.inner), threads_per_block>>>(
            x, split, out);
    }
    check_launch("log-softmax kernel");
}

template void sum_along(const float*, Split, float*);
template void sum_along(const double*, Split, double*);
template void max_along(const float*, Split, float*);
template void max_along(const double*, Split, double*);
template void log_softmax_along(const float*, Split, float*);
template void log_softmax_along(const double*, Split, double*);

}  // namespace topos::detail::cuda
