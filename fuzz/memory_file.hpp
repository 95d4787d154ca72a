// A file that lives in memory (a memfd), for fuzz targets that hand their
// input to a reader of files: rewritten for every input, and named by its
// /proc/self/fd path, so no file system is involved.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace topos::fuzz {

class MemoryFile {
public:
    // `name` labels the memfd in /proc/self/fd's links; any failure aborts.
    explicit MemoryFile(const char* name) : descriptor_(memfd_create(name, 0)) {
        if (descriptor_ < 0) {
            std::abort();
        }
    }

    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    ~MemoryFile() { close(descriptor_); }

    // The path of the file, once it holds exactly `size` bytes from `bytes`.
    std::string path_holding(const void* bytes, std::size_t size) const {
        if (ftruncate(descriptor_, 0) != 0 ||
            pwrite(descriptor_, bytes, size, 0) != static_cast<ssize_t>(size)) {
            std::abort();
        }
        return "/proc/self/fd/" + std::to_string(descriptor_);
    }

private:
    int descriptor_;
};

}  // namespace topos::fuzz
