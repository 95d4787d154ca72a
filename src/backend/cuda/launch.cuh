// What the .cu files share: error checks and the grid of a one-thread-per-
// element launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace topos::detail::cuda {

inline constexpr unsigned threads_per_block = 256;
// Grid-stride loops cover the rest; this many blocks fill any current device.
inline constexpr std::size_t max_blocks = 65535;

inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string("CUDA backend: ") + what + ": " +
                                 cudaGetErrorString(status));
    }
}

// After a launch: a bad configuration shows here, a fault at the next copy.
inline void check_launch(const char* kernel) {
    check(cudaGetLastError(), kernel);
}

inline unsigned blocks_for(std::size_t count) {
    const std::size_t blocks = (count + threads_per_block - 1) / threads_per_block;
    return static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
}

// The first index of this thread and the stride of a grid-stride loop.
__device__ inline std::size_t first_index() {
    return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline std::size_t grid_stride() {
    return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

}  // namespace topos::detail::cuda
