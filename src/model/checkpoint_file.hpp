// The file side of checkpoints, privately: an atomic replace for saving, and a
// reader that checks before it reads (a regular file, the header length
// against the file's size, the header against the payload's size) so that no
// file, however malformed, makes a load allocate more than the file holds or
// wait on a pipe.
#pragma once

#include "core/regular_file.hpp"
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
// temporary name, synced, renamed over it, and its folder synced. Through a
// symbolic link the file it names is replaced and the link stays. Refuses
// before creating anything an empty path, one ending in '/', and a path that
// holds anything but a regular file or a link to one (a directory, FIFO,
// device, socket, dangling link or loop of links). The writes hold SIGXFSZ
// back, so a file-size limit gives EFBIG, not a killed process. A failure
// removes the temporary file, leaves `target` as it was, and throws
// CheckpointError naming the call that failed and why. A save that succeeds
// removes the temporary files that saves to the same file left when their
// process died (".<name>.tmp-<pid>-<counter>" with no process <pid>).
void replace_file_atomically(const std::filesystem::path& target, std::span<const std::byte> bytes);

// A safetensors file opened for reading, its header read and validated; the
// payload is read only when asked. Throws CheckpointError for anything that is
// not a regular file (or a symbolic link to one) holding a well-formed header:
// what a save refuses to replace, a load refuses to read.
class SafetensorsReader {
public:
    explicit SafetensorsReader(const std::filesystem::path& path);

    const SafetensorsHeader& header() const { return header_; }

    // The payload, header().payload_size bytes; throws CheckpointError when the
    // file no longer holds them.
    std::vector<std::byte> read_payload();

    // The bytes of one tensor of the header, read alone.
    std::vector<std::byte> read_tensor(const TensorEntry& entry);

    // The same into `out`, which holds entry.end - entry.begin bytes.
    void read_tensor_into(const TensorEntry& entry, std::span<std::byte> out);

private:
    SafetensorsReader(std::string origin, const RegularFile& file);

    std::vector<std::byte> read_header(std::uint64_t length) const;
    std::vector<std::byte> read_exactly(std::uint64_t offset, std::uint64_t count) const;
    void read_exactly_into(std::uint64_t offset, std::span<std::byte> out) const;

    std::string origin_;
    FileDescriptor descriptor_;
    std::uint64_t payload_offset_ = 0;
    SafetensorsHeader header_;
};

}  // namespace topos::detail
