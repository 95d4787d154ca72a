// open_regular_file and file_kind, which read_csv, the checkpoint reader and
// read_source share: a regular file opened with its size; a directory, a FIFO
// (never waited on) and a device refused before anything is opened, named by
// kind; a path that cannot be looked at handed back with its errno.
#include "core/regular_file.hpp"

#include "support/scratch_folder.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace topos {
namespace {

using detail::file_kind;
using detail::open_regular_file;
using detail::RegularFile;
using test::ScratchFolder;

TEST(RegularFile, OpensARegularFileAndGivesItsSize) {
    const ScratchFolder folder("regular_file");
    std::ofstream(folder / "table.csv", std::ios::binary) << "1,2\n3,4\n";
    const RegularFile file = open_regular_file(folder / "table.csv");
    ASSERT_GE(file.descriptor, 0);
    EXPECT_EQ(file.bytes, 8u);
    EXPECT_EQ(file.error, 0);
    char first = 0;
    EXPECT_EQ(::read(file.descriptor, &first, 1), 1);
    EXPECT_EQ(first, '1');
    EXPECT_EQ(::close(file.descriptor), 0);
}

// Expects `file` to be refused before anything was opened, as `kind`.
void expect_refused_before_opening(const RegularFile& file, const std::string& kind) {
    EXPECT_EQ(file.descriptor, -1);
    EXPECT_EQ(file.error, 0);
    EXPECT_FALSE(file.opened);
    EXPECT_EQ(file_kind(file.mode), kind);
}

TEST(RegularFile, RefusesADirectoryBeforeOpeningIt) {
    const ScratchFolder folder("regular_file_directory");
    expect_refused_before_opening(open_regular_file(folder / ""), "a directory");
}

TEST(RegularFile, RefusesAFifoWithoutWaitingForAWriter) {
    const ScratchFolder folder("regular_file_fifo");
    ASSERT_EQ(::mkfifo((folder / "pipe").c_str(), 0600), 0);
    expect_refused_before_opening(open_regular_file(folder / "pipe"), "a FIFO (named pipe)");
}

TEST(RegularFile, RefusesACharacterDeviceBeforeOpeningIt) {
    expect_refused_before_opening(open_regular_file("/dev/null"), "a character device");
}

TEST(RegularFile, HandsBackTheErrnoOfAPathThatCannotBeLookedAt) {
    const ScratchFolder folder("regular_file_missing");
    const RegularFile file = open_regular_file(folder / "absent.csv");
    EXPECT_EQ(file.descriptor, -1);
    EXPECT_EQ(file.error, ENOENT);
    EXPECT_FALSE(file.opened);
}

TEST(RegularFile, FileKindNamesEveryKindThatIsNotRegular) {
    EXPECT_EQ(file_kind(S_IFDIR | 0755), "a directory");
    EXPECT_EQ(file_kind(S_IFIFO | 0600), "a FIFO (named pipe)");
    EXPECT_EQ(file_kind(S_IFCHR | 0666), "a character device");
    EXPECT_EQ(file_kind(S_IFBLK | 0660), "a block device");
    EXPECT_EQ(file_kind(S_IFSOCK | 0755), "a socket");
    EXPECT_EQ(file_kind(S_IFLNK | 0777), "not a regular file");
}

}  // namespace
}  // namespace topos
