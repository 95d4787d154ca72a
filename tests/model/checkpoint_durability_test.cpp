// What a save guarantees: it replaces the file whole or not at all. A save
// stopped midway (here by a file-size limit in a child process) leaves the last
// good checkpoint and no temporary file, and says why it failed; a reader
// loading while another process saves over and over only ever sees one whole
// checkpoint or the other.
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
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
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

TEST(CheckpointSave, AFailedRenameNamesItsCauseAndLeavesNoTemporary) {
    const ScratchFolder folder("rename_onto_folder");
    fs::create_directory(folder / "taken");
    std::ofstream(folder / "taken" / "inside") << "x";
    const Network<float> network = mlp({3, 4, 2});
    EXPECT_THAT([&] { checkpoint::save(folder / "taken", network.parameters()); },
                ::testing::ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("renaming"), HasSubstr("Is a directory"))));
    EXPECT_EQ(folder.entries(), std::set<std::string>{"taken"});
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
