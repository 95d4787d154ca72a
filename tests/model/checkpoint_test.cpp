// Checkpoints: bit-exact round trips of parameters and optimizer state, loads
// that name every mismatch, malformed files refused (by hand-made cases and
// thousands of random mutations, run under address and undefined-behaviour
// sanitizers in CI), a fixture from an earlier version that must still load,
// and an independent Python reader that must see what the C++ writer wrote.
#include "core/exact_math.hpp"
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

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// The files this test process wrote, removed when it exits.
class ScratchFiles {
public:
    ScratchFiles() = default;
    ScratchFiles(const ScratchFiles&) = delete;
    ScratchFiles& operator=(const ScratchFiles&) = delete;

    ~ScratchFiles() {
        for (const fs::path& path : paths_) {
            std::error_code ignored;
            fs::remove(path, ignored);
        }
    }

    const fs::path& add(fs::path path) { return *paths_.insert(std::move(path)).first; }

private:
    std::set<fs::path> paths_;
};

ScratchFiles scratch_files;

// A file of this test process (the pid keeps concurrent test runs apart).
fs::path scratch(const std::string& name) {
    return scratch_files.add(
        fs::path(::testing::TempDir()) /
        ("topos_checkpoint_" + std::to_string(getpid()) + '_' + name + ".safetensors"));
}

// The file the mutation test rewrites thousands of times: in memory (/dev/shm)
// where the system has it, since a disk makes each rewrite cost milliseconds.
fs::path fast_scratch(const std::string& name) {
    std::error_code error;
    if (fs::is_directory("/dev/shm", error)) {
        return scratch_files.add(fs::path("/dev/shm") / scratch(name).filename());
    }
    return scratch(name);
}

template <Element T>
Network<T> small_mlp(std::uint64_t seed) {
    Tape<T> tape;
    const Mlp<T> mlp(tape, {3, 4, 2}, Activation::Tanh, init::normal(seed, 1.0));
    (void)mlp.express(tape.input(Tensor<T>::filled(Shape{1, 3}, T{1})));
    return std::move(tape).into_network();
}

// The network's parameters with every slot redrawn, biases included.
template <Element T>
Parameters<T> redrawn(const Network<T>& network, std::uint64_t seed) {
    const Parameters<T> initial = network.parameters();
    std::vector<Tensor<T>> values;
    for (const Tensor<T>& value : initial.values()) {
        values.push_back(init::normal(seed++, 1.0)(value.shape()));
    }
    return initial.with_values(values);
}

// A standard normal sample as topos drew it before its initialisers took the
// original design's splitmix64 streams: element i from the Box-Muller pair
// i / 2 of init::counter_bits, the cosine half for even i and the sine half
// for odd. The fixture of an earlier version holds values drawn this way.
double earlier_standard_normal(std::uint64_t seed, std::uint64_t i) {
    const auto unit = [seed](std::uint64_t counter) {
        return static_cast<double>(init::counter_bits(seed, counter) >> 11) * 0x1p-53;
    };
    const std::uint64_t pair = i / 2;
    const double radius = std::sqrt(-2.0 * exact::log(1.0 - unit(2 * pair)));
    const double angle = 2.0 * std::numbers::pi * unit(2 * pair + 1);
    return radius * (i % 2 == 0 ? exact::cos(angle) : exact::sin(angle));
}

// redrawn(network, seed) as an earlier version drew it.
Parameters<double> redrawn_earlier(const Network<double>& network, std::uint64_t seed) {
    const Parameters<double> initial = network.parameters();
    std::vector<Tensor<double>> values;
    for (const Tensor<double>& value : initial.values()) {
        const std::uint64_t stream = seed++;
        values.push_back(Tensor<double>::generate(value.shape(), [&](std::span<double> out) {
            for (std::size_t i = 0; i < out.size(); ++i) {
                out[i] = earlier_standard_normal(stream, i);
            }
        }));
    }
    return initial.with_values(values);
}

template <Element T>
void expect_bit_equal(const Parameters<T>& actual, const Parameters<T>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t slot = 0; slot < actual.size(); ++slot) {
        EXPECT_TRUE(test::bit_equal(actual.values()[slot], expected.values()[slot]))
            << "slot " << slot;
    }
}

using test::bytes_of;
using test::write_bytes;
using test::write_crafted;

TEST(Checkpoint, ParametersRoundTripBitForBitInDouble) {
    const Network<double> network = small_mlp<double>(1);
    const Symbol first = network.parameters().symbols()[0];
    const double odd[] = {-0.0,
                          std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN(),
                          -1e300,
                          0.1,
                          1.0 / 3,
                          -2.5,
                          7.0,
                          8.0,
                          9.0,
                          10.0};
    const Parameters<double> saved =
        redrawn(network, 2).with(first, Tensor<double>(Shape{3, 4}, odd));
    checkpoint::save(scratch("double"), saved);
    expect_bit_equal(checkpoint::load(scratch("double"), network), saved);
}

TEST(Checkpoint, ParametersRoundTripBitForBitInFloat) {
    const Network<float> network = small_mlp<float>(3);
    const Parameters<float> saved = redrawn(network, 4);
    checkpoint::save(scratch("float"), saved);
    expect_bit_equal(checkpoint::load(scratch("float"), network), saved);
}

TEST(Checkpoint, AdamStateRoundTripsWithTheParameters) {
    const Network<float> network = small_mlp<float>(5);
    const optim::Adam adam;
    Parameters<float> parameters = network.parameters();
    auto state = adam.start(parameters);
    for (std::uint64_t step = 0; step < 3; ++step) {
        auto [next, next_state] = adam.step(parameters, redrawn(network, 10 * step), state);
        parameters = next;
        state = next_state;
    }
    checkpoint::save(scratch("adam"), parameters, state);
    expect_bit_equal(checkpoint::load(scratch("adam"), network), parameters);
    const optim::AdamState<float> loaded = checkpoint::load_adam_state(scratch("adam"), network);
    EXPECT_EQ(loaded.steps, 3u);
    expect_bit_equal(loaded.first_moment, state.first_moment);
    expect_bit_equal(loaded.second_moment, state.second_moment);
    EXPECT_THAT([&] { (void)checkpoint::load_sgd_state(scratch("adam"), network); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("holds no sgd state")));
}

TEST(Checkpoint, SgdStateRoundTripsWithTheParameters) {
    const Network<double> network = small_mlp<double>(6);
    const optim::Sgd sgd({.learning_rate = 0.1, .momentum = 0.9});
    const Parameters<double> parameters = network.parameters();
    const auto [next, state] = sgd.step(parameters, redrawn(network, 7), sgd.start(parameters));
    checkpoint::save(scratch("sgd"), next, state);
    const optim::SgdState<double> loaded = checkpoint::load_sgd_state(scratch("sgd"), network);
    EXPECT_EQ(loaded.steps, 1u);
    expect_bit_equal(loaded.momentum, state.momentum);
    EXPECT_THROW((void)checkpoint::load_sgd_state(scratch("double_only"), network),
                 CheckpointError);
}

TEST(Checkpoint, NamesEachParameterByItsNode) {
    const Network<double> network = small_mlp<double>(8);
    EXPECT_EQ(checkpoint::tensor_name(network.parameters().symbols()[1]), "parameter.1");
}

TEST(Checkpoint, LoadNamesEveryTensorThatDoesNotMatchTheNetwork) {
    // Saved: Mlp {3, 4, 2}. Loaded into: Mlp {3, 5, 2} plus one more parameter.
    checkpoint::save(scratch("mismatch"), small_mlp<double>(9).parameters());
    Tape<double> tape;
    const Mlp<double> wider(tape, {3, 5, 2}, Activation::Tanh, init::xavier(1));
    (void)tape.parameter(Tensor<double>::filled(Shape{7}, 0.0));
    const Network<double> network = std::move(tape).into_network();
    try {
        (void)checkpoint::load(scratch("mismatch"), network);
        FAIL() << "a mismatching checkpoint loaded";
    } catch (const CheckpointError& error) {
        const std::string message = error.what();
        EXPECT_THAT(message,
                    HasSubstr("parameter.0: shape [3, 4] in the file, the network's "
                              "parameter has shape [3, 5]"));
        EXPECT_THAT(message, HasSubstr("parameter.1: shape [4] in the file"));
        EXPECT_THAT(message, HasSubstr("parameter.2: shape [4, 2] in the file"));
        EXPECT_THAT(message,
                    HasSubstr("parameter.4: missing (the network has a parameter of "
                              "shape [7] at node 4)"));
        EXPECT_THAT(message, Not(HasSubstr("parameter.3:")));
    }
}

TEST(Checkpoint, LoadRefusesAnotherElementType) {
    checkpoint::save(scratch("as_float"), small_mlp<float>(10).parameters());
    EXPECT_THAT([&] { (void)checkpoint::load(scratch("as_float"), small_mlp<double>(10)); },
                ::testing::ThrowsMessage<CheckpointError>(
                    HasSubstr("parameter.0: stored as F32, the network holds F64 (load it into "
                              "a Network<float>")));
}

TEST(Checkpoint, Bf16ParametersSaveAndLoadBitForBit) {
    const Network<bf16> network = small_mlp<float>(12).convert<bf16>();
    const Parameters<bf16> parameters = network.parameters();
    checkpoint::save(scratch("as_bf16"), parameters);
    const Parameters<bf16> loaded = checkpoint::load(scratch("as_bf16"), network);
    for (const Symbol parameter : parameters.symbols()) {
        EXPECT_TRUE(test::bit_equal(loaded.of(parameter), parameters.of(parameter)));
    }
    EXPECT_THAT([&] { (void)checkpoint::load(scratch("as_bf16"), small_mlp<float>(12)); },
                ::testing::ThrowsMessage<CheckpointError>(
                    HasSubstr("parameter.0: stored as BF16, the network holds F32 (load it into "
                              "a Network<bf16>, or load by name with {.convert = true})")));
}

TEST(Checkpoint, LoadRefusesTensorsTheNetworkDoesNotHave) {
    const Network<double> network = small_mlp<double>(11);
    write_crafted(scratch("stranger"),
                  R"({"parameter.0":{"dtype":"F64","shape":[3,4],"data_offsets":[0,96]},)"
                  R"("parameter.1":{"dtype":"F64","shape":[4],"data_offsets":[96,128]},)"
                  R"("parameter.2":{"dtype":"F64","shape":[4,2],"data_offsets":[128,192]},)"
                  R"("parameter.3":{"dtype":"F64","shape":[2],"data_offsets":[192,208]},)"
                  R"("extra":{"dtype":"F64","shape":[1],"data_offsets":[208,216]}})",
                  216);
    EXPECT_THAT([&] { (void)checkpoint::load(scratch("stranger"), network); },
                ::testing::ThrowsMessage<CheckpointError>(
                    HasSubstr("extra: not a parameter of this network (F64 [1])")));
}

// Each of these is refused before any payload byte is read.
TEST(Checkpoint, RefusesMalformedFiles) {
    const Network<double> network = small_mlp<double>(12);

    const struct {
        const char* name;
        std::string header;
        std::size_t payload;
        const char* says;
    } cases[] = {
        {"not_json", "{\"parameter.0\": ", 0, "not a JSON object"},
        {"array", "[1, 2]", 0, "not a JSON object"},
        {"bad_dtype", R"({"a":{"dtype":"X99","shape":[1],"data_offsets":[0,8]}})", 8, "dtype"},
        {"negative_extent",
         R"({"a":{"dtype":"F64","shape":[-1],"data_offsets":[0,8]}})",
         8,
         "non-negative integer"},
        {"short_offsets",
         R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})",
         8,
         "needs 16 bytes"},
        {"past_the_end",
         R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[8,24]}})",
         16,
         "do not fit a payload of 16"},
        {"overlapping",
         R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},)"
         R"("b":{"dtype":"F64","shape":[2],"data_offsets":[8,24]}})",
         24,
         "overlaps another, \"a\" (bytes 0..16)"},
        {"gap",
         R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}})",
         16,
         "bytes 0..8 of the payload belong to no tensor"},
        {"trailing",
         R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})",
         16,
         "cover 8 bytes of a payload of 16: bytes 8..16 belong to no tensor"},
        {"huge_shape",
         R"({"a":{"dtype":"F64","shape":[4294967295,4294967295,4294967295],"data_offsets":[0,8]}})",
         8,
         "more elements than fit"},
        {"metadata_number", R"({"__metadata__":{"format":1}})", 0, "is not a string"},
    };

    for (const auto& c : cases) {
        write_crafted(scratch(c.name), c.header, c.payload);
        EXPECT_THAT([&] { (void)checkpoint::load(scratch(c.name), network); },
                    ::testing::ThrowsMessage<CheckpointError>(HasSubstr(c.says)))
            << c.name;
    }
}

TEST(Checkpoint, RefusesTruncatedAndOversizedHeaders) {
    const Network<double> network = small_mlp<double>(13);
    checkpoint::save(scratch("whole"), network.parameters());
    const std::vector<char> whole = bytes_of(scratch("whole"));
    write_bytes(scratch("five_bytes"), {whole.begin(), whole.begin() + 5});
    EXPECT_THAT([&] { (void)checkpoint::load(scratch("five_bytes"), network); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("fewer than the 8")));
    write_bytes(scratch("truncated"), {whole.begin(), whole.end() - 1});
    EXPECT_THROW((void)checkpoint::load(scratch("truncated"), network), CheckpointError);
    write_bytes(scratch("cut_header"), {whole.begin(), whole.begin() + 40});
    EXPECT_THAT([&] { (void)checkpoint::load(scratch("cut_header"), network); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("it is truncated")));
    std::vector<char> oversized = whole;
    for (std::size_t i = 0; i < 8; ++i) {
        oversized[i] = static_cast<char>(i == 5 ? 1 : 0);  // 2^40
    }
    write_bytes(scratch("oversized"), oversized);
    EXPECT_THAT([&] { (void)checkpoint::load(scratch("oversized"), network); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("exceeds the limit")));
    EXPECT_THAT([&] { (void)checkpoint::load(scratch("absent_file"), network); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("could not open")));
}

// Random mutations of a valid file: every one either loads or is refused with
// CheckpointError; nothing else escapes, and the sanitizers see no bad access.
TEST(Checkpoint, RandomMutationsAreLoadedOrRefusedNeverAnythingElse) {
    const Network<float> network = small_mlp<float>(14);
    const optim::Adam adam;
    checkpoint::save(scratch("valid"), network.parameters(), adam.start(network.parameters()));
    const std::vector<char> valid = bytes_of(scratch("valid"));
    std::mt19937_64 random(2026);
    const auto below = [&](std::size_t n) { return n == 0 ? 0 : random() % n; };
    const char json_chars[] = "{}[]\":,0123456789-.eE \\";
    const fs::path mutated = fast_scratch("mutated");
    std::size_t refused = 0;
    constexpr std::size_t trials = 3000;
    for (std::size_t trial = 0; trial < trials; ++trial) {
        std::vector<char> bytes = valid;
        const std::size_t kind = trial % 6;
        if (kind == 0) {  // flip a few bytes anywhere
            for (std::size_t k = 0; k <= below(4); ++k) {
                char& flipped = bytes[below(bytes.size())];
                flipped = static_cast<char>(static_cast<unsigned char>(flipped) ^ (1 + below(255)));
            }
        } else if (kind == 1) {  // truncate
            bytes.resize(below(bytes.size()));
        } else if (kind == 2) {  // a wrong header length
            const std::uint64_t length = trial % 12 == 2 ? random() : below(2 * bytes.size());
            for (std::size_t i = 0; i < 8; ++i) {
                bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
            }
        } else if (kind == 3) {  // JSON-like characters inside the header
            for (std::size_t k = 0; k <= below(3); ++k) {
                bytes[8 + below(200)] = json_chars[below(sizeof json_chars - 1)];
            }
        } else if (kind == 4) {  // insert or delete a run of bytes
            const std::size_t at = below(bytes.size());
            if (random() % 2 == 0) {
                bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), 1 + below(16), 'x');
            } else {
                bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                            bytes.begin() + static_cast<std::ptrdiff_t>(
                                                std::min(bytes.size(), at + 1 + below(16))));
            }
        } else {  // garbage, sometimes behind a plausible header length
            bytes.assign(below(400), '\0');
            for (char& b : bytes) {
                b = static_cast<char>(random());
            }
            if (bytes.size() >= 8 && random() % 2 == 0) {
                bytes[0] = static_cast<char>(below(bytes.size() - 7));
                std::fill(bytes.begin() + 1, bytes.begin() + 8, '\0');
            }
        }
        write_bytes(mutated, bytes);
        try {
            (void)checkpoint::load(mutated, network);
            (void)checkpoint::load_adam_state(mutated, network);
        } catch (const CheckpointError&) {
            ++refused;
        } catch (const std::exception& error) {
            FAIL() << "trial " << trial << " (mutation " << kind
                   << ") escaped as something other than CheckpointError: " << error.what();
        }
    }
    fs::remove(mutated);
    EXPECT_GT(refused, trials / 2);
}

// tests/golden/checkpoints/mlp_3_4_2.safetensors was written by an earlier
// version (TOPOS_UPDATE_GOLDEN=1 rewrites it): the parameters of
// small_mlp<double>(15) redrawn from seed 16, with an Sgd state after one step
// on gradients redrawn from seed 170.
TEST(Checkpoint, AFileFromAnEarlierVersionStillLoads) {
    const fs::path fixture =
        fs::path(TOPOS_SOURCE_DIR) / "tests/golden/checkpoints/mlp_3_4_2.safetensors";
    const Network<double> network = small_mlp<double>(15);
    const Parameters<double> expected = redrawn_earlier(network, 16);
    const optim::Sgd sgd({.learning_rate = 0.1, .momentum = 0.9});
    const auto [next, state] =
        sgd.step(expected, redrawn_earlier(network, 170), sgd.start(expected));
    if (const char* update = std::getenv("TOPOS_UPDATE_GOLDEN");
        update && update == std::string("1")) {
        checkpoint::save(fixture, expected, state);
    }
    expect_bit_equal(checkpoint::load(fixture, network), expected);
    const optim::SgdState<double> loaded = checkpoint::load_sgd_state(fixture, network);
    EXPECT_EQ(loaded.steps, 1u);
    expect_bit_equal(loaded.momentum, state.momentum);
}

// Runs a shell command and returns what it printed on standard output.
std::string output_of(const std::string& command) {
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return out;
    }
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
        out += buffer;
    }
    pclose(pipe);
    return out;
}

// Saves redrawn parameters of a small Mlp and checks, line by line, what
// tests/model/read_safetensors.py prints for the file: names in slot order,
// dtype, shape, and every value exactly (Python's repr reads back exactly).
template <Element T>
void expect_python_reads_what_was_saved(const std::string& dtype_expected) {
    const Network<T> network = small_mlp<T>(18);
    const Parameters<T> saved = redrawn(network, 19);
    const fs::path path = scratch("for_python_" + dtype_expected);
    checkpoint::save(path, saved);
    const std::string script = std::string(TOPOS_SOURCE_DIR) + "/tests/model/read_safetensors.py";
    std::istringstream lines(output_of("python3 '" + script + "' '" + path.string() + "'"));
    std::size_t slot = 0;
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string name, dtype, shape;
        fields >> name >> dtype >> shape;
        if (name == "__metadata__") {
            EXPECT_EQ(dtype, "format=topos");
            continue;
        }
        ASSERT_LT(slot, saved.size()) << line;
        EXPECT_EQ(name, checkpoint::tensor_name(saved.symbols()[slot]));
        EXPECT_EQ(dtype, dtype_expected);
        const Tensor<T>& value = saved.values()[slot];
        std::string extents = value.shape().str();
        extents.erase(std::remove(extents.begin(), extents.end(), ' '), extents.end());
        EXPECT_EQ(shape, extents);
        std::size_t count = 0;
        for (std::string text; fields >> text; ++count) {
            ASSERT_LT(count, value.elements()) << line;
            EXPECT_EQ(std::strtod(text.c_str(), nullptr), double{value.data()[count]})
                << name << " element " << count;
        }
        EXPECT_EQ(count, value.elements()) << name;
        ++slot;
    }
    EXPECT_EQ(slot, saved.size()) << "the Python reader printed fewer tensors than were saved";
}

TEST(Checkpoint, AnIndependentPythonReaderSeesWhatWasWritten) {
    if (std::system("python3 -c 'import json, struct' > /dev/null 2>&1") != 0) {
        GTEST_SKIP() << "python3 is not available";
    }
    expect_python_reads_what_was_saved<float>("F32");
    expect_python_reads_what_was_saved<double>("F64");
}

}  // namespace
}  // namespace topos
