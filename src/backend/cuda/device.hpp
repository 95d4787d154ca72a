// The device as the CUDA backend sees it: whether one is present, and device
// memory that grows to the largest request and is reused (one per thread and
// purpose, like the host arena).
#pragma once

#include <cstddef>

namespace topos::detail::cuda {

// Whether this process sees a CUDA device; false on machines without one (or
// without a driver), where the backend serves nothing. Asked once.
bool device_present();

// Device memory for `elements` values of T; keeps its allocation while later
// requests fit.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    // At least `elements` values; the contents are not kept when it grows.
    T* reserve(std::size_t elements);

private:
    T* data_ = nullptr;
    std::size_t capacity_ = 0;
};

template <class T>
void upload(const T* host, T* device, std::size_t count);

template <class T>
void download(const T* device, T* host, std::size_t count);

}  // namespace topos::detail::cuda
