// Opening a file to read where only a regular file will do: the words for what
// stands at a path instead (a directory, a FIFO, a device, a socket), and an
// open that refuses anything else both before it opens the path and after,
// without ever blocking on a FIFO. Each caller throws its own error type, with
// its own sentence around these words.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <sys/types.h>

namespace topos::detail {

// What a file that is not a regular one is, for a message: "a directory",
// "a FIFO (named pipe)", "a character device", "a block device", "a socket",
// or "not a regular file" for any other kind.
std::string file_kind(mode_t mode);

// What open_regular_file found. Opened: `descriptor` is open on a regular
// file of `bytes` bytes, the caller's to close. Refused: `descriptor` is -1,
// and either `error` holds the errno of the stat, open or fstat that failed,
// or it is 0 and `mode` is what stands at the path (file_kind says it);
// `opened` says whether the refusal came after the open, from the fstat.
struct RegularFile {
    int descriptor = -1;
    std::uint64_t bytes = 0;
    int error = 0;
    mode_t mode = 0;
    bool opened = false;
};

// Opens `path` to read when stat (which follows symbolic links) finds a
// regular file there, and checks with fstat that what was opened is one too,
// so a file put there in between is refused as well; O_NONBLOCK, so that
// opening a FIFO cannot wait for a writer, and O_CLOEXEC. A descriptor it
// refuses after opening, it closes.
RegularFile open_regular_file(const std::filesystem::path& path);

// A descriptor closed when its owner goes (a negative one is not).
class OwnedDescriptor {
public:
    explicit OwnedDescriptor(int descriptor) : descriptor_(descriptor) {}

    OwnedDescriptor(const OwnedDescriptor&) = delete;
    OwnedDescriptor& operator=(const OwnedDescriptor&) = delete;
    ~OwnedDescriptor();

    int get() const { return descriptor_; }

private:
    int descriptor_;
};

}  // namespace topos::detail
