// open_regular_file and file_kind (regular_file.hpp): stat, open and fstat,
// each failure or other kind of file handed back for the caller's message.
#include "core/regular_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace topos::detail {

std::string file_kind(mode_t mode) {
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

RegularFile open_regular_file(const std::filesystem::path& path) {
    RegularFile file;

    struct stat status {};

    if (::stat(path.c_str(), &status) != 0) {
        file.error = errno;
        return file;
    }
    if (!S_ISREG(status.st_mode)) {
        file.mode = status.st_mode;
        return file;
    }
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (descriptor < 0) {
        file.error = errno;
        return file;
    }
    file.opened = true;
    if (::fstat(descriptor, &status) != 0) {
        file.error = errno;
        ::close(descriptor);
        return file;
    }
    if (!S_ISREG(status.st_mode)) {
        file.mode = status.st_mode;
        ::close(descriptor);
        return file;
    }
    file.descriptor = descriptor;
    file.bytes = static_cast<std::uint64_t>(status.st_size);
    return file;
}

OwnedDescriptor::~OwnedDescriptor() {
    if (descriptor_ >= 0) {
        ::close(descriptor_);
    }
}

}  // namespace topos::detail
