// The CUDA runtime calls behind device.hpp: whether a device is present
// (asked once), device buffers that grow by reallocation and are freed at
// destruction, and blocking copies between host and device. A failed call
// throws with cudaGetErrorString's reason.
#include "backend/cuda/device.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace topos::detail::cuda {
namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string("CUDA backend: ") + what + ": " +
                                 cudaGetErrorString(status));
    }
}

}  // namespace

bool device_present() {
    static const bool present = [] {
        int count = 0;
        return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    }();
    return present;
}

template <class T>
DeviceBuffer<T>::~DeviceBuffer() {
    // At process exit the runtime may already be gone; nothing to report then.
    static_cast<void>(cudaFree(data_));
}

template <class T>
T* DeviceBuffer<T>::reserve(std::size_t elements) {
    if (elements > capacity_) {
        check(cudaFree(data_), "cudaFree");
        data_ = nullptr;
        capacity_ = 0;
        void* fresh = nullptr;
        check(cudaMalloc(&fresh, elements * sizeof(T)), "cudaMalloc");
        data_ = static_cast<T*>(fresh);
        capacity_ = elements;
    }
    return data_;
}

template <class T>
void upload(const T* host, T* device, std::size_t count) {
    if (count > 0) {
        check(cudaMemcpy(device, host, count * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
}

template <class T>
void download(const T* device, T* host, std::size_t count) {
    if (count > 0) {
        check(cudaMemcpy(host, device, count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    }
}

template class DeviceBuffer<float>;
template class DeviceBuffer<double>;
template void upload(const float*, float*, std::size_t);
template void upload(const double*, double*, std::size_t);
template void download(const float*, float*, std::size_t);
template void download(const double*, double*, std::size_t);

}  // namespace topos::detail::cuda
