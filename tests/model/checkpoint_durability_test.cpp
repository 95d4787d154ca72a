// What a save guarantees: it replaces the file whole or not at all. A save
// stopped midway (here by a file-size limit in a child process, which gets a
// CheckpointError, not SIGXFSZ) leaves the last good checkpoint and no
// temporary file, and says why it failed; a reader loading while another
// process saves over and over only ever sees one whole checkpoint or the
// other. A save refuses, before creating anything, what a load refuses to
// read (an empty path, a folder, a FIFO, a socket, a device, a dangling link,
// a loop of links), and a save that succeeds removes the temporary files that
// killed saves of the same checkpoint left behind, and only those.
#include "support/bit_equal.hpp"
#include "support/scratch_folder.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/init.hpp>
#include <topos/model/mlp.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <set>
#include <string>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
#include <utility>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

using test::ScratchFolder;

Network<float> mlp(std::initializer_list<std::size_t> widths) {
    Tape<float> tape;
    const Mlp<float> model(tape, widths, Activation::Tanh, init::normal(1, 1.0));
    (void)model.express(tape.input(Tensor<float>::filled(Shape{1, *widths.begin()}, 1.0f)));
    return std::move(tape).into_network();
}

Parameters<float> redrawn(const Network<float>& network, std::uint64_t seed) {
    const Parameters<float> initial = network.parameters();
    std::vector<Tensor<float>> values;
    for (const Tensor<float>& value : initial.values()) {
        values.push_back(init::normal(seed++, 1.0)(value.shape()));
    }
    return initial.with_values(values);
}

bool bit_equal(const Parameters<float>& a, const Parameters<float>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t slot = 0; slot < a.size(); ++slot) {
        if (!test::bit_equal(a.values()[slot], b.values()[slot])) {
            return false;
        }
    }
    return true;
}

// What a child process reported: its exit status and what it wrote.
struct ChildReport {
    int status = -1;
    std::string said;
};

// Runs `work` in a child process, which writes what it has to say to a pipe
// and ends with _exit (never running this process's exit handlers).
// `while_running` runs in this process until the child has exited.
ChildReport in_child_process(const std::function<int(std::string&)>& work,
                             const std::function<void()>& while_running = {}) {
    int channel[2];
    if (pipe(channel) != 0) {
        ADD_FAILURE() << "pipe failed";
        return {};
    }
    const pid_t child = fork();
    if (child == 0) {
        close(channel[0]);
        std::string said;
        const int code = work(said);
        const ssize_t ignored = write(channel[1], said.data(), said.size());
        (void)ignored;
        _exit(code);
    }
    close(channel[1]);
    ChildReport report;
    int status = 0;
    if (while_running) {
        while (waitpid(child, &status, WNOHANG) == 0) {
            while_running();
        }
    } else {
        waitpid(child, &status, 0);
    }
    report.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    char buffer[4096];
    for (ssize_t got; (got = read(channel[0], buffer, sizeof buffer)) > 0;) {
        report.said.append(buffer, static_cast<std::size_t>(got));
    }
    close(channel[0]);
    return report;
}

TEST(CheckpointSave, AFailedSaveLeavesTheLastGoodCheckpoint) {
    const ScratchFolder folder("failed_save");
    const fs::path path = folder / "model.safetensors";
    const Network<float> small = mlp({3, 4, 2});
    const Parameters<float> good = redrawn(small, 1);
    checkpoint::save(path, good);
    const Parameters<float> large = redrawn(mlp({64, 256, 64}), 2);  // 130 KiB

    const ChildReport report = in_child_process([&](std::string& said) {
        const rlimit limit{8192, 8192};
        setrlimit(RLIMIT_FSIZE, &limit);
        std::signal(SIGXFSZ, SIG_IGN);  // so the write fails with EFBIG instead
        try {
            checkpoint::save(path, large);
            said = "the save succeeded";
            return 1;
        } catch (const CheckpointError& error) {
            said = error.what();
            return 0;
        }
    });

    EXPECT_EQ(report.status, 0) << report.said;
    EXPECT_THAT(report.said, HasSubstr("writing"));
    EXPECT_THAT(report.said, HasSubstr("File too large"));
    EXPECT_THAT(report.said, HasSubstr("is left as it was"));
    EXPECT_THAT(report.said, Not(HasSubstr("its folder")));
    EXPECT_TRUE(bit_equal(checkpoint::load(path, small), good));
    EXPECT_EQ(folder.entries(), std::set<std::string>{"model.safetensors"});
}

TEST(CheckpointSave, ReadersDuringRepeatedSavesSeeOneWholeCheckpointOrTheOther) {
    const ScratchFolder folder("concurrent_saves");
    const fs::path path = folder / "model.safetensors";
    const Network<float> network = mlp({64, 256, 256, 64});  // 380 KiB a file
    const Parameters<float> first = redrawn(network, 3);
    const Parameters<float> second = redrawn(network, 4);
    checkpoint::save(path, first);

    std::size_t loads = 0;
    std::size_t wrong = 0;
    std::string refusal;
    const auto load_once = [&] {
        try {
            const Parameters<float> loaded = checkpoint::load(path, network);
            wrong += bit_equal(loaded, first) || bit_equal(loaded, second) ? 0 : 1;
        } catch (const CheckpointError& error) {
            refusal = error.what();
            ++wrong;
        }
        ++loads;
    };
    const ChildReport report = in_child_process(
        [&](std::string& said) {
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
            std::size_t saves = 0;
            try {
                for (; std::chrono::steady_clock::now() < until; ++saves) {
                    checkpoint::save(path, saves % 2 == 0 ? second : first);
                }
            } catch (const CheckpointError& error) {
                said = error.what();
                return 1;
            }
            said = std::to_string(saves);
            return 0;
        },
        load_once);
    load_once();

    ASSERT_EQ(report.status, 0) << report.said;
    EXPECT_EQ(wrong, 0u) << "of " << loads << " loads; the last refusal: " << refusal;
    EXPECT_GT(std::stoul(report.said), 1u);
    EXPECT_GT(loads, 1u);
    EXPECT_EQ(folder.entries(), std::set<std::string>{"model.safetensors"});
}

// With SIGXFSZ at its default (end the process), a save past the file-size
// limit still throws CheckpointError, and leaves the child's signal mask as it
// was with no SIGXFSZ pending, so it lives on.
TEST(CheckpointSave, AFileSizeLimitGivesACheckpointErrorNotSIGXFSZ) {
    const ScratchFolder folder("file_size_limit");
    const fs::path path = folder / "model.safetensors";
    const Network<float> small = mlp({3, 4, 2});
    const Parameters<float> good = redrawn(small, 7);
    checkpoint::save(path, good);
    const Parameters<float> large = redrawn(mlp({64, 256, 64}), 8);  // 130 KiB

    const ChildReport report = in_child_process([&](std::string& said) {
        std::signal(SIGXFSZ, SIG_DFL);
        sigset_t before;
        pthread_sigmask(SIG_SETMASK, nullptr, &before);
        const rlimit limit{8192, 8192};
        setrlimit(RLIMIT_FSIZE, &limit);
        try {
            checkpoint::save(path, large);
            said = "the save succeeded";
            return 1;
        } catch (const CheckpointError& error) {
            said = error.what();
        }
        sigset_t after;
        sigset_t pending;
        pthread_sigmask(SIG_SETMASK, nullptr, &after);
        sigpending(&pending);
        if (sigismember(&pending, SIGXFSZ) == 1) {
            said += " [SIGXFSZ is left pending]";
            return 2;
        }
        if (sigismember(&after, SIGXFSZ) != sigismember(&before, SIGXFSZ)) {
            said += " [the signal mask changed]";
            return 3;
        }
        return 0;
    });

    EXPECT_EQ(report.status, 0) << report.said << " (" << 128 + SIGXFSZ << " is death by SIGXFSZ)";
    EXPECT_THAT(report.said, HasSubstr("File too large"));
    EXPECT_THAT(report.said, HasSubstr("file-size limit"));
    EXPECT_THAT(report.said, HasSubstr("is left as it was"));
    EXPECT_TRUE(bit_equal(checkpoint::load(path, small), good));
    EXPECT_EQ(folder.entries(), std::set<std::string>{"model.safetensors"});
}

// Expects a save to `path` to be refused with a message holding `says`,
// leaving `folder` as it was, and a load of `path` to be refused for the same
// reason.
void expect_save_and_load_refused(const ScratchFolder& folder,
                                  const fs::path& path,
                                  const std::string& says) {
    const Network<float> network = mlp({3, 4, 2});
    const std::set<std::string> before = folder.entries();

    struct stat status_before {};

    const bool existed = lstat(path.c_str(), &status_before) == 0;
    EXPECT_THAT([&] { checkpoint::save(path, network.parameters()); },
                ::testing::ThrowsMessage<CheckpointError>(AllOf(
                    HasSubstr("could not save the checkpoint " + path.string() + ": it " + says),
                    HasSubstr("is left as it was"))));
    EXPECT_EQ(folder.entries(), before);

    struct stat status_after {};

    if (existed) {
        ASSERT_EQ(lstat(path.c_str(), &status_after), 0);
        EXPECT_EQ(status_after.st_mode, status_before.st_mode);
        EXPECT_EQ(status_after.st_ino, status_before.st_ino);
    }
    EXPECT_THAT([&] { (void)checkpoint::load(path, network); },
                ::testing::ThrowsMessage<CheckpointError>(
                    HasSubstr("the checkpoint " + path.string() + ' ' + says)));
}

TEST(CheckpointSave, RefusesToReplaceADirectoryBeforeCreatingAnything) {
    const ScratchFolder folder("onto_folder");
    fs::create_directory(folder / "taken");
    std::ofstream(folder / "taken" / "inside") << "x";
    expect_save_and_load_refused(folder, folder / "taken", "is a directory, not a regular file");
}

TEST(CheckpointSave, RefusesToReplaceAFifo) {
    const ScratchFolder folder("onto_fifo");
    ASSERT_EQ(mkfifo((folder / "pipe").c_str(), 0600), 0);
    expect_save_and_load_refused(
        folder, folder / "pipe", "is a FIFO (named pipe), not a regular file");
}

TEST(CheckpointSave, RefusesToReplaceASocket) {
    const ScratchFolder folder("onto_socket");
    const fs::path path = folder / "socket";
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.string().size() >= sizeof address.sun_path) {
        GTEST_SKIP() << path << " is too long for a Unix socket's address";
    }
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    const int listening = socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(listening, 0);
    ASSERT_EQ(bind(listening, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    expect_save_and_load_refused(folder, path, "is a socket, not a regular file");
    close(listening);
}

// A character device made in the scratch folder (the null device, 1:3), so
// that even a save that failed to refuse it would replace nothing outside the
// folder; without the privilege to make one, /dev/null, whose folder an
// unprivileged save cannot write either.
TEST(CheckpointSave, RefusesToReplaceACharacterDevice) {
    const ScratchFolder folder("onto_device");
    fs::path device = folder / "null";
    if (mknod(device.c_str(), S_IFCHR | 0600, makedev(1, 3)) != 0) {
        if (geteuid() == 0) {
            GTEST_SKIP() << "mknod failed: " << std::strerror(errno);
        }
        device = "/dev/null";
    }
    expect_save_and_load_refused(folder, device, "is a character device, not a regular file");
}

// A symbolic link a save and a load must refuse, and keep: the links made in
// a scratch folder (each name and the path it holds), with a FIFO "pipe"
// beside them first where `fifo` says so, the link given, and what is said.
struct RefusedLink {
    std::string name;
    bool fifo;
    std::vector<std::pair<std::string, std::string>> links;
    std::string given;
    std::string says;
};

void PrintTo(const RefusedLink& link, std::ostream* out) {
    *out << link.name;
}

class SymbolicLink : public ::testing::TestWithParam<RefusedLink> {};

TEST_P(SymbolicLink, IsRefusedBySaveAndLoadAndKept) {
    const RefusedLink& link = GetParam();
    const ScratchFolder folder("link_" + link.name);
    if (link.fifo) {
        ASSERT_EQ(mkfifo((folder / "pipe").c_str(), 0600), 0);
    }
    for (const auto& [name, target] : link.links) {
        fs::create_symlink(target, folder / name);
    }
    expect_save_and_load_refused(folder, folder / link.given, link.says);
    EXPECT_TRUE(fs::is_symlink(folder / link.given));
}

INSTANTIATE_TEST_SUITE_P(
    CheckpointSave,
    SymbolicLink,
    ::testing::Values(
        RefusedLink{"Dangling",
                    false,
                    {{"link.safetensors", "absent.safetensors"}},
                    "link.safetensors",
                    "is a symbolic link to \"absent.safetensors\", which does not exist (a "
                    "dangling link)"},
        RefusedLink{"InALoop",
                    false,
                    {{"a.safetensors", "b.safetensors"}, {"b.safetensors", "a.safetensors"}},
                    "a.safetensors",
                    "is a symbolic link that never reaches a file (a loop of symbolic links"},
        RefusedLink{"ToAFifo",
                    true,
                    {{"link.safetensors", "pipe"}},
                    "link.safetensors",
                    "is a symbolic link to \"pipe\", which is a FIFO (named pipe), not a regular "
                    "file"}),
    [](const ::testing::TestParamInfo<RefusedLink>& info) { return info.param.name; });

TEST(CheckpointSave, RefusesAnEmptyPathAndAPathEndingInASlash) {
    const ScratchFolder folder("empty_path");
    const Network<float> network = mlp({3, 4, 2});
    EXPECT_THAT([&] { checkpoint::save("", network.parameters()); },
                ::testing::ThrowsMessage<CheckpointError>(
                    HasSubstr("could not save a checkpoint: its path is empty (name a file, e.g. "
                              "\"model.safetensors\")")));
    EXPECT_THAT([&] { (void)checkpoint::load("", network); },
                ::testing::ThrowsMessage<CheckpointError>(
                    HasSubstr("could not load a checkpoint: its path is empty")));
    const std::string slash = (folder / "").string();
    expect_save_and_load_refused(
        folder,
        slash,
        "ends in '/', so it names a folder, not a file (name a file inside it, e.g. " + slash +
            "model.safetensors)");
    expect_save_and_load_refused(
        folder, folder / "absent/", "ends in '/', so it names a folder, not a file");
    EXPECT_TRUE(folder.entries().empty());
}

// Temporary files named as saves of model.safetensors name them, left by a
// process that no longer exists, go at the next save; a live process's, those
// of another checkpoint and files named otherwise stay.
TEST(CheckpointSave, ASaveRemovesTheStaleTemporaryFilesOfItsCheckpointOnly) {
    const ScratchFolder folder("stale_temporaries");
    const Network<float> network = mlp({3, 4, 2});
    const pid_t gone = fork();
    if (gone == 0) {
        _exit(0);
    }
    ASSERT_GT(gone, 0);
    int status = 0;
    ASSERT_EQ(waitpid(gone, &status, 0), gone);
    ASSERT_NE(kill(gone, 0), 0);
    const std::string dead = std::to_string(gone);
    const std::string live = std::to_string(getpid());
    const std::set<std::string> stale = {".model.safetensors.tmp-" + dead + "-0",
                                         ".model.safetensors.tmp-" + dead + "-17"};
    const std::set<std::string> kept = {
        ".model.safetensors.tmp-" + live + "-999999",  // a save in flight
        ".other.safetensors.tmp-" + dead + "-0",       // another checkpoint's
        ".model.safetensors.tmp-" + dead,              // not named as a save names them
        ".model.safetensors.tmp-" + dead + "-1x",
        ".model.safetensors.tmp--3",
        "model.safetensors.tmp-" + dead + "-0",
        "notes.txt",
    };
    for (const std::set<std::string>* names : {&stale, &kept}) {
        for (const std::string& name : *names) {
            std::ofstream(folder / name) << "partial";
        }
    }
    fs::create_directory(folder / (".model.safetensors.tmp-" + dead + "-5"));
    fs::create_symlink("notes.txt", folder / (".model.safetensors.tmp-" + dead + "-6"));

    const Parameters<float> saved = redrawn(network, 9);
    checkpoint::save(folder / "model.safetensors", saved);

    std::set<std::string> expected = kept;
    expected.insert({"model.safetensors",
                     ".model.safetensors.tmp-" + dead + "-5",
                     ".model.safetensors.tmp-" + dead + "-6"});
    EXPECT_EQ(folder.entries(), expected);
    EXPECT_TRUE(bit_equal(checkpoint::load(folder / "model.safetensors", network), saved));
}

TEST(CheckpointSave, SavingIntoAMissingFolderSaysTheFolderIsMissing) {
    const ScratchFolder folder("missing_folder");
    const Network<float> network = mlp({3, 4, 2});
    EXPECT_THAT(
        [&] { checkpoint::save(folder / "absent/model.safetensors", network.parameters()); },
        ::testing::ThrowsMessage<CheckpointError>(
            AllOf(HasSubstr("No such file or directory"), HasSubstr("does the folder exist?"))));
}

TEST(CheckpointSave, AReplacedFileKeepsItsPermissions) {
    const ScratchFolder folder("permissions");
    const fs::path path = folder / "model.safetensors";
    const Network<float> network = mlp({3, 4, 2});
    checkpoint::save(path, network.parameters());
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    checkpoint::save(path, redrawn(network, 5));
    EXPECT_EQ(fs::status(path).permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

TEST(CheckpointSave, SavingThroughASymbolicLinkReplacesTheFileItNames) {
    const ScratchFolder folder("symlink");
    const Network<float> network = mlp({3, 4, 2});
    checkpoint::save(folder / "real.safetensors", network.parameters());
    fs::create_symlink("real.safetensors", folder / "link.safetensors");
    const Parameters<float> saved = redrawn(network, 6);
    checkpoint::save(folder / "link.safetensors", saved);
    EXPECT_TRUE(fs::is_symlink(folder / "link.safetensors"));
    EXPECT_TRUE(bit_equal(checkpoint::load(folder / "real.safetensors", network), saved));
}

}  // namespace
}  // namespace topos
