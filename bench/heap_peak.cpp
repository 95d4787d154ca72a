// Replaces the global operator new and delete to count the bytes the heap
// holds (bench/heap_peak.hpp). Linked into a benchmark, it counts every
// allocation of its process.
#include "heap_peak.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <malloc.h>
#include <new>

namespace {

std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};

void* counted(void* block) {
    if (block == nullptr) {
        throw std::bad_alloc();
    }
    const std::size_t now = live_bytes += malloc_usable_size(block);
    std::size_t peak = peak_bytes.load();
    while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
    }
    return block;
}

void uncounted(void* block) {
    if (block != nullptr) {
        live_bytes -= malloc_usable_size(block);
        std::free(block);
    }
}

}  // namespace

void* operator new(std::size_t size) {
    return counted(std::malloc(size == 0 ? 1 : size));
}

void* operator new[](std::size_t size) {
    return counted(std::malloc(size == 0 ? 1 : size));
}

void* operator new(std::size_t size, std::align_val_t align) {
    const auto alignment = static_cast<std::size_t>(align);
    return counted(std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment));
}

void* operator new[](std::size_t size, std::align_val_t align) {
    return operator new(size, align);
}

void operator delete(void* block) noexcept {
    uncounted(block);
}

void operator delete[](void* block) noexcept {
    uncounted(block);
}

void operator delete(void* block, std::size_t) noexcept {
    uncounted(block);
}

void operator delete[](void* block, std::size_t) noexcept {
    uncounted(block);
}

void operator delete(void* block, std::align_val_t) noexcept {
    uncounted(block);
}

void operator delete[](void* block, std::align_val_t) noexcept {
    uncounted(block);
}

void operator delete(void* block, std::size_t, std::align_val_t) noexcept {
    uncounted(block);
}

void operator delete[](void* block, std::size_t, std::align_val_t) noexcept {
    uncounted(block);
}

namespace bench {

std::size_t heap_live_bytes() {
    return live_bytes.load();
}

std::size_t heap_peak_bytes() {
    return peak_bytes.load();
}

void reset_heap_peak() {
    peak_bytes = live_bytes.load();
}

}  // namespace bench
