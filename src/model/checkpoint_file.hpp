// The file side of checkpoints, privately: an atomic replace for saving, and a
// reader that checks before it reads (a regular file, the header length
// against the file's size, the header against the payload's size) so that no
// file, however malformed, makes a load allocate more than the file holds or
// wait on a pipe.
#pragma once

#include "model/safetensors.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace topos::detail {

// An open file descriptor, closed when it goes.
class FileDescriptor {
public:
    FileDescriptor() = default;

    explicit FileDescriptor(int descriptor) : descriptor_(descriptor) {}

    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    ~FileDescriptor() { (void)close(); }

    int get() const { return descriptor_; }

    bool is_open() const { return descriptor_ >= 0; }

    // Closes it now: 0, or the errno of a close that failed.
    int close();

private:
    int descriptor_ = -1;
};

// Replaces `target` with a file holding `bytes`: written beside it under a
// temporary name, synced, renamed over it, and its folder synced. A failure
// removes the temporary file, leaves `target` as it was, and throws
// CheckpointError naming the call that failed and why.
void replace_file_atomically(const std::filesystem::path& target, std::span<const std::byte> bytes);

// A safetensors file opened for reading, its header read and validated; the
// payload is read only when asked. Throws CheckpointError for anything that is
// not a regular file holding a well-formed header.
class SafetensorsReader {
public:
    explicit SafetensorsReader(const std::filesystem::path& path);

    const SafetensorsHeader& header() const { return header_; }

    // The payload, header().payload_size bytes; throws CheckpointError when the
    // file no longer holds them.
    std::vector<std::byte> read_payload();

private:
    std::vector<std::byte> read_exactly(std::uint64_t offset, std::uint64_t count) const;

    std::string origin_;
    FileDescriptor descriptor_;
    std::uint64_t payload_offset_ = 0;
    SafetensorsHeader header_;
};

}  // namespace topos::detail
