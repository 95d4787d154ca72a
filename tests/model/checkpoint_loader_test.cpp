// What a load checks before it reads: that the path is a regular file (a
// directory, a FIFO or a device is named and refused, never waited on), that
// the header length fits the file (a 2 GiB sparse file claiming a header of
// 2^63 bytes is refused at once, allocating nothing), that the header names
// each tensor once and its offsets tile the payload, and that every tensor,
// optimizer buffers included, is what the network and the declared optimizer
// expect, before any payload byte is read.
#include "model/checkpoint_bytes.hpp"
#include "support/bit_equal.hpp"
#include "support/scratch_folder.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/init.hpp>
#include <topos/model/mlp.hpp>
#include <topos/model/optim.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace topos {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
namespace fs = std::filesystem;

using test::bytes_of;
using test::length_prefix;
using test::ScratchFolder;
using test::write_bytes;
using test::write_crafted;

// parameter.0 [3, 4], parameter.1 [4], parameter.2 [4, 2], parameter.3 [2].
template <Element T>
Network<T> small_mlp() {
    Tape<T> tape;
    const Mlp<T> mlp(tape, {3, 4, 2}, Activation::Tanh, init::normal(1, 1.0));
    (void)mlp.express(tape.input(Tensor<T>::filled(Shape{1, 3}, T{1})));
    return std::move(tape).into_network();
}

// Rewrites the JSON header of the file at `path` with `edit`, keeping its payload.
void edit_header(const fs::path& path, const std::function<std::string(std::string)>& edit) {
    const std::vector<char> bytes = bytes_of(path);
    std::uint64_t length = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        length |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
    }
    const auto header_end = bytes.begin() + 8 + static_cast<std::ptrdiff_t>(length);
    const std::string header = edit(std::string(bytes.begin() + 8, header_end));
    std::vector<char> edited = length_prefix(header.size());
    edited.insert(edited.end(), header.begin(), header.end());
    edited.insert(edited.end(), header_end, bytes.end());
    write_bytes(path, edited);
}

std::function<std::string(std::string)> replacing(const std::string& pattern,
                                                  const std::string& replacement) {
    return [=](const std::string& header) {
        const std::string edited = std::regex_replace(header, std::regex(pattern), replacement);
        EXPECT_NE(edited, header) << "the pattern " << pattern << " matched nothing";
        return edited;
    };
}

// The largest resident set this process has had, in KiB.
long peak_resident_kib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

TEST(CheckpointLoad, RefusesADirectoryNamingWhatItIs) {
    const ScratchFolder folder("directory");
    fs::create_directory(folder / "model.safetensors");
    EXPECT_THAT([&] { (void)checkpoint::load(folder / "model.safetensors", small_mlp<float>()); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("model.safetensors is a directory, not a regular file"))));
}

TEST(CheckpointLoad, RefusesAFifoWithoutWaitingOnIt) {
    const ScratchFolder folder("fifo");
    ASSERT_EQ(mkfifo((folder / "pipe").c_str(), 0600), 0);
    EXPECT_THAT([&] { (void)checkpoint::load(folder / "pipe", small_mlp<float>()); },
                ThrowsMessage<CheckpointError>(HasSubstr("is a FIFO (named pipe)")));
}

TEST(CheckpointLoad, RefusesACharacterDevice) {
    EXPECT_THAT([&] { (void)checkpoint::load("/dev/null", small_mlp<float>()); },
                ThrowsMessage<CheckpointError>(HasSubstr("/dev/null is a character device")));
}

TEST(CheckpointLoad, RefusesAHugeHeaderLengthInASparseFileAtOnceAllocatingNothing) {
    const ScratchFolder folder("sparse");
    const fs::path path = folder / "sparse.safetensors";
    write_bytes(path, length_prefix(std::uint64_t{1} << 63));
    fs::resize_file(path, std::uint64_t{2} << 30);  // a hole: no disk, no page cache
    const Network<float> network = small_mlp<float>();
    const long resident_before = peak_resident_kib();
    const auto started = std::chrono::steady_clock::now();
    EXPECT_THAT([&] { (void)checkpoint::load(path, network); },
                ThrowsMessage<CheckpointError>(AllOf(HasSubstr("header length 9223372036854775808"),
                                                     HasSubstr("the file has 2147483648 bytes"))));
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500));
    EXPECT_LT(peak_resident_kib() - resident_before, 64 * 1024);
}

// The header is valid and claims a 2 GiB tensor this network does not have:
// refused from the header alone, the payload never read.
TEST(CheckpointLoad, RefusesAStrangeTensorBeforeReadingItsBytes) {
    const ScratchFolder folder("sparse_payload");
    const fs::path path = folder / "sparse.safetensors";
    const std::string header =
        R"({"huge":{"dtype":"U8","shape":[2147483648],"data_offsets":[0,2147483648]}})";
    write_crafted(path, header, 0);
    fs::resize_file(path, 8 + header.size() + (std::uint64_t{2} << 30));
    const long resident_before = peak_resident_kib();
    EXPECT_THAT([&] { (void)checkpoint::load(path, small_mlp<float>()); },
                ThrowsMessage<CheckpointError>(
                    HasSubstr("huge: not a parameter of this network (U8 [2147483648])")));
    EXPECT_LT(peak_resident_kib() - resident_before, 64 * 1024);
}

TEST(CheckpointLoad, RefusesATensorNamedTwice) {
    const ScratchFolder folder("duplicate");
    write_crafted(folder / "twice",
                  R"({"parameter.0":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                  R"("parameter.0":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                  8);
    EXPECT_THAT(
        [&] { (void)checkpoint::load(folder / "twice", small_mlp<float>()); },
        ThrowsMessage<CheckpointError>(HasSubstr("\"parameter.0\" appears twice in the header")));
}

TEST(CheckpointLoad, RefusesAKeyWrittenTwiceInsideAnEntry) {
    const ScratchFolder folder("duplicate_key");
    write_crafted(folder / "twice",
                  R"({"a":{"dtype":"F32","dtype":"F64","shape":[1],"data_offsets":[0,8]}})",
                  8);
    EXPECT_THAT([&] { (void)checkpoint::load(folder / "twice", small_mlp<float>()); },
                ThrowsMessage<CheckpointError>(
                    HasSubstr("\"dtype\" appears twice inside the entry of \"a\"")));
}

TEST(CheckpointLoad, NamesTheBytesNoTensorCovers) {
    const ScratchFolder folder("gap");
    write_crafted(folder / "gap",
                  R"({"a":{"dtype":"F64","shape":[16],"data_offsets":[0,128]},)"
                  R"("b":{"dtype":"F64","shape":[1],"data_offsets":[256,264]}})",
                  264);
    EXPECT_THAT([&] { (void)checkpoint::load(folder / "gap", small_mlp<double>()); },
                ThrowsMessage<CheckpointError>(
                    HasSubstr("bytes 128..256 of the payload belong to no tensor")));
}

TEST(CheckpointLoad, NamesAnUnsupportedDtypeAndWhatToposLoads) {
    const ScratchFolder folder("f16");
    write_crafted(folder / "f16",
                  R"({"parameter.0":{"dtype":"F16","shape":[3,4],"data_offsets":[0,24]},)"
                  R"("parameter.1":{"dtype":"F64","shape":[4],"data_offsets":[24,56]},)"
                  R"("parameter.2":{"dtype":"F64","shape":[4,2],"data_offsets":[56,120]},)"
                  R"("parameter.3":{"dtype":"F64","shape":[2],"data_offsets":[120,136]}})",
                  136);
    EXPECT_THAT([&] { (void)checkpoint::load(folder / "f16", small_mlp<double>()); },
                ThrowsMessage<CheckpointError>(AllOf(
                    HasSubstr("parameter.0: stored as F16, which topos does not load by node"),
                    HasSubstr("it loads F32 into a Network<float>, F64 into a Network<double> "
                              "and BF16 into a Network<bf16>"),
                    HasSubstr("load by name with {.convert = true}"),
                    Not(HasSubstr("load it into a Network<double>")))));
}

TEST(CheckpointLoad, RefusesOptimizerTensorsInAFileThatDeclaresNoOptimizer) {
    const ScratchFolder folder("undeclared_optimizer");
    const fs::path path = folder / "model.safetensors";
    const Network<float> network = small_mlp<float>();
    const optim::Adam adam;
    checkpoint::save(path, network.parameters(), adam.start(network.parameters()));
    edit_header(path, replacing(R"("optimizer":"adam",)", ""));
    EXPECT_THAT([&] { (void)checkpoint::load(path, network); },
                ThrowsMessage<CheckpointError>(AllOf(
                    HasSubstr("the optimizer state it declares"),
                    HasSubstr("optimizer.first_moment.parameter.0: the file declares no optimizer "
                              "state"))));
}

TEST(CheckpointLoad, RefusesAnUnknownOptimizerBufferListingTheExpectedOnes) {
    const ScratchFolder folder("unknown_buffer");
    const fs::path path = folder / "model.safetensors";
    const Network<float> network = small_mlp<float>();
    const optim::Adam adam;
    checkpoint::save(path, network.parameters(), adam.start(network.parameters()));
    edit_header(path,
                replacing("optimizer.first_moment.parameter.1", "optimizer.velocity.parameter.1"));
    const auto message = HasSubstr(
        "optimizer.velocity.parameter.1: not a buffer of the adam state the file "
        "declares: expected optimizer.first_moment.parameter.<i> or "
        "optimizer.second_moment.parameter.<i> for a parameter node i of the network "
        "(0, 1, 2, 3)");
    EXPECT_THAT([&] { (void)checkpoint::load(path, network); },
                ThrowsMessage<CheckpointError>(message));
    EXPECT_THAT([&] { (void)checkpoint::load_adam_state(path, network); },
                ThrowsMessage<CheckpointError>(
                    AllOf(message, HasSubstr("optimizer.first_moment.parameter.1: missing"))));
}

TEST(CheckpointLoad, ChecksTheDtypeAndShapeOfEveryOptimizerBuffer) {
    const ScratchFolder folder("buffer_shapes");
    const fs::path path = folder / "model.safetensors";
    const Network<float> network = small_mlp<float>();
    const optim::Adam adam;
    checkpoint::save(path, network.parameters(), adam.start(network.parameters()));
    edit_header(path,
                replacing(R"(("optimizer.first_moment.parameter.1":\{"data_offsets":\[\d+,\d+\],)"
                          R"("dtype":")F32(","shape":)\[4\])",
                          "$1I32$2[2,2]"));
    edit_header(path,
                replacing(R"(("optimizer.second_moment.parameter.3":\{"data_offsets":\[\d+,\d+\],)"
                          R"("dtype":"F32","shape":)\[2\])",
                          "$1[1,2]"));
    const auto both = AllOf(
        HasSubstr("optimizer.first_moment.parameter.1: stored as I32, which topos does not load"),
        HasSubstr("optimizer.second_moment.parameter.3: shape [1, 2] in the file, the network's "
                  "parameter has shape [2]"));
    EXPECT_THAT([&] { (void)checkpoint::load(path, network); },
                ThrowsMessage<CheckpointError>(both));
    EXPECT_THAT([&] { (void)checkpoint::load_adam_state(path, network); },
                ThrowsMessage<CheckpointError>(both));
}

TEST(CheckpointLoad, RefusesAnOptimizerStateWithoutACountOfSteps) {
    const ScratchFolder folder("steps");
    const fs::path path = folder / "model.safetensors";
    const Network<double> network = small_mlp<double>();
    const optim::Sgd sgd({.learning_rate = 0.1, .momentum = 0.9});
    checkpoint::save(path, network.parameters(), sgd.start(network.parameters()));
    edit_header(path, replacing(R"("optimizer.steps":"0")", R"("optimizer.steps":"-1")"));
    EXPECT_THAT(
        [&] { (void)checkpoint::load(path, network); },
        ThrowsMessage<CheckpointError>(HasSubstr(
            "optimizer.steps (in __metadata__): \"-1\", where the sgd state needs a count")));
}

TEST(CheckpointLoad, LoadsFromBytesWhatItLoadsFromTheFile) {
    const ScratchFolder folder("bytes");
    const fs::path path = folder / "model.safetensors";
    const Network<double> network = small_mlp<double>();
    const optim::Adam adam;
    const Parameters<double> parameters = network.parameters();
    checkpoint::save(path, parameters, adam.start(parameters));
    const std::vector<char> file = bytes_of(path);
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(file.data()),
                                           file.size());
    const Parameters<double> loaded = checkpoint::load_from_bytes(bytes, network, "memory");
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        EXPECT_TRUE(test::bit_equal(loaded.values()[slot], parameters.values()[slot]));
    }
    EXPECT_EQ(checkpoint::load_adam_state_from_bytes(bytes, network, "memory").steps, 0u);
    EXPECT_THAT(
        [&] { (void)checkpoint::load_sgd_state_from_bytes(bytes, network, "memory"); },
        ThrowsMessage<CheckpointError>(HasSubstr("the checkpoint memory holds no sgd state")));
}

}  // namespace
}  // namespace topos
