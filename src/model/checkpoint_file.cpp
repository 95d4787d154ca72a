// Checkpoint files on POSIX: a save written to a temporary file beside the
// destination (through a symbolic link to its target), fsynced, renamed over
// it and its folder synced, so a crash leaves the old file or the new one; the
// temporary files of saves whose process died are removed by the next save.
// Both a save and SafetensorsReader refuse, before opening anything, a path
// that holds something other than a regular file or a symbolic link to one;
// the reader checks the header's length against the file's size before
// reading by pread.
#include "model/checkpoint_file.hpp"

#include "core/regular_file.hpp"
#include <topos/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <fcntl.h>
#include <pthread.h>
#include <string_view>
#include <sys/stat.h>
#include <sys/types.h>
#include <system_error>
#include <unistd.h>
#include <utility>

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

[[noreturn]] void refuse_kind(const std::string& origin, mode_t mode) {
    throw CheckpointError("the checkpoint " + origin + " is " + file_kind(mode) +
                          ", not a regular file: a checkpoint is a file checkpoint::save wrote");
}

// What a path is checked for: a save, which replaces it, or a load, which reads it.
enum class Use {
    Save,
    Load
};

// Refuses `path` for `use`; `problem` says what it is ("is a FIFO ...").
[[noreturn]] void refuse_path(const fs::path& path, Use use, const std::string& problem) {
    const std::string origin = path.string();
    if (use == Use::Load) {
        throw CheckpointError("the checkpoint " + origin + ' ' + problem +
                              ": a checkpoint is a file checkpoint::save wrote");
    }
    throw CheckpointError("could not save the checkpoint " + origin + ": it " + problem +
                          "; a save replaces only a regular file or a symbolic link to one, or "
                          "creates a new file where nothing is (" +
                          origin + " is left as it was)");
}

// What the symbolic link at `path` holds, quoted.
std::string link_text(const fs::path& path) {
    std::error_code error;
    const fs::path text = fs::read_symlink(path, error);
    return error ? std::string("a path it cannot read back") : '"' + text.string() + '"';
}

// Refuses, before anything is opened, a path that cannot name a checkpoint
// file: an empty one, one ending in '/' (a folder), and one holding anything
// but a regular file or a symbolic link to one: a directory, a FIFO, a
// device, a socket, a dangling link, a loop of links. Nothing at the path, or
// a path that cannot be looked at, is left to the open or create that follows
// (a save makes a new file; a load says why it could not open it).
void refuse_unless_file(const fs::path& path, Use use) {
    if (path.empty()) {
        throw CheckpointError(use == Use::Save
                                  ? "could not save a checkpoint: its path is empty (name a file, "
                                    "e.g. \"model.safetensors\")"
                                  : "could not load a checkpoint: its path is empty (name a file, "
                                    "e.g. \"model.safetensors\")");
    }
    if (!path.has_filename()) {
        refuse_path(path,
                    use,
                    "ends in '/', so it names a folder, not a file (name a file inside it, e.g. " +
                        (path / "model.safetensors").string() + ")");
    }

    struct stat link {};

    if (::lstat(path.c_str(), &link) != 0 || S_ISREG(link.st_mode)) {
        return;
    }
    if (!S_ISLNK(link.st_mode)) {
        refuse_path(path, use, "is " + file_kind(link.st_mode) + ", not a regular file");
    }

    struct stat target {};

    if (::stat(path.c_str(), &target) != 0) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR) {
            refuse_path(path,
                        use,
                        "is a symbolic link to " + link_text(path) +
                            ", which does not exist (a dangling link)");
        }
        if (error == ELOOP) {
            refuse_path(path,
                        use,
                        "is a symbolic link that never reaches a file (a loop of symbolic "
                        "links: " +
                            reason(error) + ")");
        }
        refuse_path(path,
                    use,
                    "is a symbolic link to " + link_text(path) +
                        ", which cannot be followed: " + reason(error));
    }
    if (!S_ISREG(target.st_mode)) {
        refuse_path(path,
                    use,
                    "is a symbolic link to " + link_text(path) + ", which is " +
                        file_kind(target.st_mode) + ", not a regular file");
    }
}

// The file a save replaces: the target itself, or the file a symbolic link
// names, so that saving through a link rewrites what it points to and the
// link stays. Refuses what refuse_unless_file refuses.
fs::path destination_of(const fs::path& target) {
    refuse_unless_file(target, Use::Save);
    std::error_code error;
    if (!fs::is_symlink(target, error)) {
        return target;
    }
    fs::path resolved = fs::canonical(target, error);
    if (error) {
        refuse_path(target,
                    Use::Save,
                    "is a symbolic link to " + link_text(target) +
                        ", which cannot be followed: " + error.message());
    }
    return resolved;
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

// The process that wrote the temporary file named `name` (temporary_prefix,
// then "<pid>-<counter>"), or 0 when `name` is not one.
pid_t writer_of(std::string_view name, const std::string& prefix) {
    if (!name.starts_with(prefix)) {
        return 0;
    }
    const std::string_view rest = name.substr(prefix.size());
    const std::size_t dash = rest.find('-');
    const auto digits = [](std::string_view text) {
        return !text.empty() &&
               std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (dash == std::string_view::npos || !digits(rest.substr(0, dash)) ||
        !digits(rest.substr(dash + 1))) {
        return 0;
    }
    pid_t pid = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + dash, pid);
    return error == std::errc() && end == rest.data() + dash && pid > 0 ? pid : 0;
}

// Removes what saves to `destination` left behind when their process died
// before it could (killed mid-save): the regular files named like its
// temporary files whose writer no longer exists (kill(pid, 0) gives ESRCH).
// A live process's temporary file, another checkpoint's and any other file
// are left alone. Failures are ignored: the save has already succeeded.
void remove_stale_temporaries(const fs::path& destination) {
    const std::string prefix = temporary_prefix(destination);
    std::error_code error;
    fs::directory_iterator entries(fs::path(folder_of(destination)), error);
    for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
        const fs::path& path = entries->path();
        const pid_t writer = writer_of(path.filename().native(), prefix);
        std::error_code ignored;
        if (writer == 0 || !entries->is_regular_file(ignored) || entries->is_symlink(ignored)) {
            continue;
        }
        if (::kill(writer, 0) != 0 && errno == ESRCH) {
            (void)::unlink(path.c_str());
        }
    }
}

// Blocks SIGXFSZ for the calling thread while it lives, so that a write past
// the file-size limit (RLIMIT_FSIZE, `ulimit -f`) fails with EFBIG instead of
// ending the process. A SIGXFSZ the writes raised is taken off the thread
// before the previous mask returns, so it is never delivered later; one that
// was pending before is left pending.
class FileSizeSignalHeld {
public:
    FileSizeSignalHeld() {
        sigemptyset(&only_);
        sigaddset(&only_, SIGXFSZ);
        sigset_t pending;
        pending_before_ = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ) == 1;
        held_ = pthread_sigmask(SIG_BLOCK, &only_, &previous_) == 0;
    }

    FileSizeSignalHeld(const FileSizeSignalHeld&) = delete;
    FileSizeSignalHeld& operator=(const FileSizeSignalHeld&) = delete;

    ~FileSizeSignalHeld() {
        if (!held_) {
            return;
        }
        const int saved_errno = errno;
        sigset_t pending;
        if (!pending_before_ && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ) == 1) {
            const timespec now{0, 0};
            while (sigtimedwait(&only_, nullptr, &now) < 0 && errno == EINTR) {
            }
        }
        (void)pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
        errno = saved_errno;
    }

private:
    sigset_t only_{};
    sigset_t previous_{};
    bool pending_before_ = false;
    bool held_ = false;
};

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
        const FileSizeSignalHeld file_size_signal;
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
        const std::string hint =
            error == EFBIG ? " (past the file-size limit of the process, ulimit -f, or the "
                             "largest file the file system holds)"
                           : "";
        throw CheckpointError("could not save the checkpoint " + destination_.string() + ": " +
                              what + ": " + reason(error) + hint + " (" + destination_.string() +
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

// A descriptor for `path` and the size of the file, refusing anything but a
// regular file before and after opening it.
RegularFile open_checkpoint_file(const fs::path& path, const std::string& origin) {
    refuse_unless_file(path, Use::Load);
    const RegularFile file = open_regular_file(path);
    if (file.descriptor < 0 && file.error != 0) {
        throw CheckpointError(
            (file.opened ? "could not read the checkpoint " : "could not open the checkpoint ") +
            origin + ": " + reason(file.error));
    }
    if (file.descriptor < 0) {
        refuse_kind(origin, file.mode);
    }
    return file;
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
    const fs::path destination = destination_of(target);
    TemporaryFile file(destination);
    file.keep_permissions_of_destination();
    file.write_all(bytes);
    file.commit();
    remove_stale_temporaries(destination);
}

SafetensorsReader::SafetensorsReader(const fs::path& path)
    : SafetensorsReader(path.string(), open_checkpoint_file(path, path.string())) {}

SafetensorsReader::SafetensorsReader(std::string origin, const RegularFile& file)
    : origin_(std::move(origin)), descriptor_(file.descriptor) {
    const std::uint64_t file_size = file.bytes;
    const std::vector<std::byte> prefix =
        read_exactly(0, std::min<std::uint64_t>(file_size, safetensors_length_bytes));
    const std::uint64_t length = checked_header_length(prefix, file_size, origin_);
    payload_offset_ = safetensors_length_bytes + length;
    header_ = parse_safetensors_header(read_header(length), file_size - payload_offset_, origin_);
}

// The header's `length` bytes, read a chunk at a time. A header whose bytes so
// far already show it cannot be one (HeaderNesting) is parsed, and so refused,
// at once: a hostile header of 100 MB costs the chunks read, not 100 MB.
// Storage for the whole header is reserved only once it is longer than a few
// chunks.
std::vector<std::byte> SafetensorsReader::read_header(std::uint64_t length) const {
    constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
    constexpr std::uint64_t chunks_before_reserving = 4;
    std::vector<std::byte> header;
    header.reserve(std::min(length, chunks_before_reserving * chunk));
    HeaderNesting nesting;
    while (header.size() < length) {
        const std::uint64_t done = header.size();
        if (done == chunks_before_reserving * chunk) {
            header.reserve(length);
        }
        const std::vector<std::byte> more =
            read_exactly(safetensors_length_bytes + done, std::min(chunk, length - done));
        header.insert(header.end(), more.begin(), more.end());
        if (nesting.refuses(more)) {
            break;
        }
    }
    return header;
}

std::vector<std::byte> SafetensorsReader::read_payload() {
    return read_exactly(payload_offset_, header_.payload_size);
}

std::vector<std::byte> SafetensorsReader::read_tensor(const TensorEntry& entry) {
    return read_exactly(payload_offset_ + entry.begin, entry.end - entry.begin);
}

void SafetensorsReader::read_tensor_into(const TensorEntry& entry, std::span<std::byte> out) {
    if (out.size() != entry.end - entry.begin) {
        throw CheckpointError("a tensor of " + std::to_string(entry.end - entry.begin) +
                              " bytes of " + origin_ + " cannot be read into " +
                              std::to_string(out.size()) + " bytes");
    }
    read_exactly_into(payload_offset_ + entry.begin, out);
}

// `count` is never more than the file's size, checked before any call.
std::vector<std::byte> SafetensorsReader::read_exactly(std::uint64_t offset,
                                                       std::uint64_t count) const {
    std::vector<std::byte> bytes(count);
    read_exactly_into(offset, bytes);
    return bytes;
}

void SafetensorsReader::read_exactly_into(std::uint64_t offset, std::span<std::byte> bytes) const {
    const std::uint64_t count = bytes.size();
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
}

}  // namespace topos::detail
