// Checkpoint files on POSIX: a save written to a temporary file beside the
// destination (through a symbolic link to its target), fsynced, renamed over
// it and its folder synced, so a crash leaves the old file or the new one; and
// SafetensorsReader, which refuses anything but a regular file and checks the
// header's length against the file's size before reading by pread.
#include "model/checkpoint_file.hpp"

#include <topos/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace topos::detail {
namespace {

namespace fs = std::filesystem;

// The most one read or write call is asked for (Linux moves at most 2 GiB - 4 KiB).
constexpr std::uint64_t largest_transfer = std::uint64_t{1} << 30;

// Leaves room for the suffix within a file name's 255 bytes.
constexpr std::size_t longest_name_kept = 200;

std::string reason(int error) {
    return std::error_code(error, std::generic_category()).message();
}

std::string folder_of(const fs::path& file) {
    return file.has_parent_path() ? file.parent_path().string() : std::string(".");
}

// What a file that is not regular is, in words.
std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO (named pipe)";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

[[noreturn]] void refuse_kind(const std::string& origin, mode_t mode) {
    throw CheckpointError("the checkpoint " + origin + " is " + kind_of(mode) +
                          ", not a regular file: a checkpoint is a file checkpoint::save wrote");
}

// The file a save replaces: the target itself, or the file a symbolic link
// names, so that saving through a link rewrites what it points to.
fs::path destination_of(const fs::path& target) {
    std::error_code error;
    if (!fs::is_symlink(target, error)) {
        return target;
    }
    const fs::path resolved = fs::canonical(target, error);
    return error ? target : resolved;
}

// ".<name>.tmp-": what the temporary files of a save to `target` begin with.
std::string temporary_prefix(const fs::path& target) {
    return '.' + target.filename().string().substr(0, longest_name_kept) + ".tmp-";
}

// The file a save writes before the rename: beside the destination, named by
// the process and a counter so that concurrent saves never share one.
fs::path temporary_path(const fs::path& destination) {
    static std::atomic<std::uint64_t> counter{0};
    return fs::path(folder_of(destination)) /
           (temporary_prefix(destination) + std::to_string(::getpid()) + '-' +
            std::to_string(counter.fetch_add(1)));
}

// A file beside the destination that becomes it on commit(), and is removed
// unless it did.
class TemporaryFile {
public:
    explicit TemporaryFile(const fs::path& destination)
        : destination_(destination),
          path_(temporary_path(destination)),
          descriptor_(::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) {
        if (!descriptor_.is_open()) {
            fail_to_create(errno);
        }
    }

    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    ~TemporaryFile() {
        if (!committed_) {
            (void)descriptor_.close();
            (void)::unlink(path_.c_str());
        }
    }

    // A replaced file keeps its permissions; a new one gets 0666 less the umask.
    void keep_permissions_of_destination() const {
        struct stat existing {};

        if (::stat(destination_.c_str(), &existing) != 0 || !S_ISREG(existing.st_mode)) {
            return;
        }
        if (::fchmod(descriptor_.get(), existing.st_mode & 07777) != 0) {
            fail("giving " + path_.string() + " the permissions of the file it replaces failed",
                 errno);
        }
    }

    void write_all(std::span<const std::byte> bytes) {
        std::uint64_t written = 0;
        while (written < bytes.size()) {
            const std::uint64_t asked =
                std::min<std::uint64_t>(bytes.size() - written, largest_transfer);
            const ssize_t count = ::write(descriptor_.get(), bytes.data() + written, asked);
            if (count < 0 && errno == EINTR) {
                continue;
            }
            if (count <= 0) {
                fail("writing " + path_.string() + " failed after " + std::to_string(written) +
                         " of " + std::to_string(bytes.size()) + " bytes",
                     count < 0 ? errno : EIO);
            }
            written += static_cast<std::uint64_t>(count);
        }
    }

    // Syncs and closes the file, renames it over the destination, syncs the folder.
    void commit() {
        while (::fsync(descriptor_.get()) != 0) {
            if (errno != EINTR) {
                fail("fsync of " + path_.string() + " failed", errno);
            }
        }
        if (const int error = descriptor_.close(); error != 0) {
            fail("closing " + path_.string() + " failed", error);
        }
        if (::rename(path_.c_str(), destination_.c_str()) != 0) {
            fail("renaming " + path_.string() + " to " + destination_.string() + " failed", errno);
        }
        committed_ = true;
        sync_folder();
    }

private:
    [[noreturn]] void fail(const std::string& what, int error) const {
        throw CheckpointError("could not save the checkpoint " + destination_.string() + ": " +
                              what + ": " + reason(error) + " (" + destination_.string() +
                              " is left as it was)");
    }

    [[noreturn]] void fail_to_create(int error) const {
        std::string hint;
        if (error == ENOENT || error == ENOTDIR) {
            hint = " (does the folder exist?)";
        } else if (error == EACCES || error == EPERM) {
            hint = " (is the folder writable?)";
        }
        fail("creating " + path_.string() + " in the folder " + folder_of(destination_) +
                 " failed" + hint,
             error);
    }

    // Makes the rename itself durable. Some file systems cannot sync a folder
    // (EINVAL); the file is then as durable as they allow.
    void sync_folder() const {
        const std::string folder = folder_of(destination_);
        const FileDescriptor descriptor(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        int error = descriptor.is_open() ? 0 : errno;
        while (error == 0 && ::fsync(descriptor.get()) != 0) {
            error = errno == EINTR ? 0 : errno;
        }
        if (error != 0 && error != EINVAL) {
            throw CheckpointError("the checkpoint " + destination_.string() +
                                  " was written, but syncing its folder " + folder +
                                  " failed: " + reason(error) +
                                  " (after a crash the folder may still hold the previous file)");
        }
    }

    fs::path destination_;
    fs::path path_;
    FileDescriptor descriptor_;
    bool committed_ = false;
};

// A descriptor for `path`, refusing anything but a regular file before and
// after opening it; O_NONBLOCK so that a FIFO put there in between cannot block.
int open_regular_file(const fs::path& path, const std::string& origin) {
    struct stat status {};

    if (::stat(path.c_str(), &status) != 0) {
        throw CheckpointError("could not open the checkpoint " + origin + ": " + reason(errno));
    }
    if (!S_ISREG(status.st_mode)) {
        refuse_kind(origin, status.st_mode);
    }
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (descriptor < 0) {
        throw CheckpointError("could not open the checkpoint " + origin + ": " + reason(errno));
    }
    return descriptor;
}

std::uint64_t size_of_regular_file(int descriptor, const std::string& origin) {
    struct stat status {};

    if (::fstat(descriptor, &status) != 0) {
        throw CheckpointError("could not read the checkpoint " + origin + ": " + reason(errno));
    }
    if (!S_ISREG(status.st_mode)) {
        refuse_kind(origin, status.st_mode);
    }
    return static_cast<std::uint64_t>(status.st_size);
}

}  // namespace

int FileDescriptor::close() {
    if (descriptor_ < 0) {
        return 0;
    }
    // Not retried on EINTR: Linux has released the descriptor either way.
    const int result = ::close(descriptor_);
    descriptor_ = -1;
    return result == 0 ? 0 : errno;
}

void replace_file_atomically(const fs::path& target, std::span<const std::byte> bytes) {
    TemporaryFile file(destination_of(target));
    file.keep_permissions_of_destination();
    file.write_all(bytes);
    file.commit();
}

SafetensorsReader::SafetensorsReader(const fs::path& path)
    : origin_(path.string()), descriptor_(open_regular_file(path, origin_)) {
    const std::uint64_t file_size = size_of_regular_file(descriptor_.get(), origin_);
    const std::vector<std::byte> prefix =
        read_exactly(0, std::min<std::uint64_t>(file_size, safetensors_length_bytes));
    const std::uint64_t length = checked_header_length(prefix, file_size, origin_);
    payload_offset_ = safetensors_length_bytes + length;
    header_ = parse_safetensors_header(
        read_exactly(safetensors_length_bytes, length), file_size - payload_offset_, origin_);
}

std::vector<std::byte> SafetensorsReader::read_payload() {
    return read_exactly(payload_offset_, header_.payload_size);
}

// `count` is never more than the file's size, checked before any call.
std::vector<std::byte> SafetensorsReader::read_exactly(std::uint64_t offset,
                                                       std::uint64_t count) const {
    std::vector<std::byte> bytes(count);
    std::uint64_t done = 0;
    while (done < count) {
        const std::uint64_t asked = std::min(count - done, largest_transfer);
        const ssize_t got = ::pread(
            descriptor_.get(), bytes.data() + done, asked, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            throw CheckpointError("could not read the checkpoint " + origin_ + ": " +
                                  reason(errno));
        }
        if (got == 0) {
            throw CheckpointError("the checkpoint " + origin_ + " ended at byte " +
                                  std::to_string(offset + done) + ", before the " +
                                  std::to_string(offset + count) +
                                  " bytes its size promised: it changed while it was read");
        }
        done += static_cast<std::uint64_t>(got);
    }
    return bytes;
}

}  // namespace topos::detail
