// Layout kernels: repetition along a new axis, a generic strided permutation
// (one thread per output element, its input offset from the output index),
// and a plain copy for reshapes.
#include "backend/cuda/device_kernels.hpp"
#include "backend/cuda/launch.cuh"

namespace topos::detail::cuda {
namespace {

template <class T>
__global__ void repeat(const T* x, Split split, T* out) {
    const std::size_t count = split.outer * split.extent * split.inner;
    for (std::size_t k = first_index(); k < count; k += grid_stride()) {
        const std::size_t outer = k / (split.extent * split.inner);
        out[k] = x[outer * split.inner + k % split.inner];
    }
}

template <class T>
__global__ void gather_permuted(const T* x, PermuteWalk walk, T* out, std::size_t count) {
    for (std::size_t k = first_index(); k < count; k += grid_stride()) {
        std::size_t rest = k;
        std::size_t offset = 0;
        for (std::size_t axis = walk.rank; axis-- > 0;) {
            offset += (rest % walk.extents[axis]) * walk.strides[axis];
            rest /= walk.extents[axis];
        }
        out[k] = x[offset];
    }
}

}  // namespace

template <class T>
void broadcast_along(const T* x, Split split, T* out) {
    const std::size_t count = split.outer * split.extent * split.inner;
    if (count == 0) {
        return;
    }
    repeat<<<blocks_for(count), threads_per_block>>>(x, split, out);
    check_launch("broadcast kernel");
}

template <class T>
void permute(const T* x, const PermuteWalk& walk, T* out) {
    std::size_t count = 1;
    for (std::size_t axis = 0; axis < walk.rank; ++axis) {
        count *= walk.extents[axis];
    }
    if (count == 0) {
        return;
    }
    gather_permuted<<<blocks_for(count), threads_per_block>>>(x, walk, out, count);
    check_launch("permute kernel");
}

template <class T>
void copy(const T* x, T* out, std::size_t count) {
    if (count == 0) {
        return;
    }
    check(cudaMemcpy(out, x, count * sizeof(T), cudaMemcpyDeviceToDevice), "device copy");
}

template void broadcast_along(const float*, Split, float*);
template void broadcast_along(const double*, Split, double*);
template void permute(const float*, const PermuteWalk&, float*);
template void permute(const double*, const PermuteWalk&, double*);
template void copy(const float*, float*, std::size_t);
template void copy(const double*, double*, std::size_t);

}  // namespace topos::detail::cuda
