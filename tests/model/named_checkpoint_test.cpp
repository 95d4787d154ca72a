// Named parameters and checkpoints by name. Modules name their parameters as
// PyTorch's modules do; a checkpoint by name round-trips bit for bit whatever
// order the model was recorded in; and a PyTorch state_dict saved with
// safetensors (tests/golden/checkpoints/torch_cnn.safetensors, written by
// tools/torch-state-dict.py) loads into the same architecture and gives
// PyTorch's logits. Where /usr/bin/python3 has torch, a fresh file is written
// and checked too. Tensors stored as BF16, F16 or F64 load into a float model
// when asked to convert, each element rounded once (the expected floats are
// the stored bits' values, worked out by hand).
#include "support/bit_equal.hpp"
#include "support/safetensors_writer.hpp"
#include "support/scratch_folder.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::little_endian_16;
using test::little_endian_64;
using test::ScratchFolder;
using test::write_safetensors;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> names_of(const std::vector<NamedParameter>& parameters) {
    std::vector<std::string> names;
    for (const NamedParameter& parameter : parameters) {
        names.push_back(parameter.name);
    }
    return names;
}

// The architecture of tools/torch-state-dict.py: Conv2d(1 -> 4, 3x3, padding
// 1), ReLU, MaxPool 2, flatten, LayerNorm(64), Linear(64 -> 3).
struct Net {
    explicit Net(Tape<float>& tape)
        : conv1(tape,
                {.in_channels = 1, .out_channels = 4, .kernel = 3, .padding = 1},
                init::normal(1, 0.3)),
          norm(tape, 64),
          fc(tape, 64, 3, init::xavier(2)) {}

    Value<float> express(const Value<float>& x) const {
        return fc.express(norm.express(flatten(pool.express(conv1.express(x).relu()), 1)));
    }

    std::vector<NamedParameter> named_parameters() const {
        return topos::named_parameters({{"conv1", conv1}, {"norm", norm}, {"fc", fc}});
    }

    Conv2d<float> conv1;
    MaxPool2d<float> pool{2};
    LayerNorm<float> norm;
    Linear<float> fc;
};

TEST(NamedParameters, ModulesNameTheirParametersAsPyTorchDoes) {
    Tape<float> tape;
    const Net net(tape);
    EXPECT_THAT(
        names_of(named_parameters(net)),
        ElementsAre(
            "conv1.weight", "conv1.bias", "norm.weight", "norm.bias", "fc.weight", "fc.bias"));
    const auto named = named_parameters(net.fc);
    EXPECT_TRUE(named[0].transposed_in_pytorch);
    EXPECT_FALSE(named[1].transposed_in_pytorch);
    EXPECT_EQ(named[0].symbol, net.fc.weight().symbol());

    const Mlp<float> mlp(tape, {4, 5, 2}, Activation::Tanh, init::xavier(3));
    EXPECT_THAT(names_of(named_parameters(mlp)),
                ElementsAre("0.weight", "0.bias", "2.weight", "2.bias"));
    const Mlp<float> linear(tape, {4, 5, 2}, Activation::Identity, init::xavier(3));
    EXPECT_THAT(names_of(named_parameters(linear)),
                ElementsAre("0.weight", "0.bias", "1.weight", "1.bias"));
    const TransformerBlock<float> block(tape, 8, 2, 16, init::xavier(4));
    const auto block_names = names_of(named_parameters({{"blocks.0", block}}));
    EXPECT_EQ(block_names.front(), "blocks.0.norm1.weight");
    EXPECT_THAT(block_names, ::testing::Contains("blocks.0.attention.query.weight"));
    EXPECT_EQ(block_names.back(), "blocks.0.mlp.2.bias");
}

TEST(NamedParameters, RefusesANameGivenTwiceAndAPartWithoutAName) {
    Tape<float> tape;
    const Linear<float> a(tape, 2, 2, init::xavier(1));
    const Linear<float> b(tape, 2, 2, init::xavier(2));
    EXPECT_THAT(
        [&] {
            (void)named_parameters({{"fc", a}, {"fc", b}});
        },
        ::testing::ThrowsMessage<Error>(HasSubstr("fc.weight is given twice")));
    EXPECT_THROW((void)named_parameters({{"", a}}), Error);
    const Value<float> scale = tape.parameter(1.0f);
    EXPECT_THAT(names_of(named_parameters({{"scale", scale}, {"fc", a}})),
                ElementsAre("scale", "fc.weight", "fc.bias"));
}

TEST(NamedCheckpoint, RoundTripsWhateverOrderTheModelWasRecordedIn) {
    const ScratchFolder folder("named_round_trip");
    Tape<float> first_tape;
    const Net first(first_tape);
    const Network<float> first_network = std::move(first_tape).into_network();
    Parameters<float> trained = first_network.parameters();
    for (const Symbol symbol : trained.symbols()) {  // values no initialiser gives
        trained =
            trained.with(symbol, trained.of(symbol) * Tensor<float>(1.5f) + Tensor<float>(0.25f));
    }
    checkpoint::save(folder / "net.safetensors", trained, named_parameters(first));

    Tape<float> second_tape;
    (void)second_tape.parameter(Tensor<float>::filled({7}, 0.0f));  // shifts every node index
    const Net second(second_tape);
    const Network<float> second_network = std::move(second_tape).into_network();
    const Parameters<float> loaded =
        checkpoint::load(folder / "net.safetensors", second_network, named_parameters(second));
    const auto first_names = named_parameters(first);
    const auto second_names = named_parameters(second);
    for (std::size_t i = 0; i < first_names.size(); ++i) {
        EXPECT_NE(first_names[i].symbol.index(), second_names[i].symbol.index());
        EXPECT_TRUE(
            test::bit_equal(loaded.of(second_names[i].symbol), trained.of(first_names[i].symbol)))
            << first_names[i].name;
    }
    EXPECT_TRUE(test::bit_equal(loaded.values()[0], second_network.parameters().values()[0]));
}

TEST(NamedCheckpoint, StoresALinearWeightAsPyTorchHoldsIt) {
    const ScratchFolder folder("named_layout");
    Tape<double> tape;
    const Linear<double> fc(tape, 3, 2, init::xavier(5));
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = network.parameters();
    checkpoint::save(folder / "fc.safetensors", parameters, named_parameters(fc));
    const std::vector<char> bytes = test::bytes_of(folder / "fc.safetensors");
    std::uint64_t length = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        length |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
    }
    const std::string header(bytes.begin() + 8,
                             bytes.begin() + 8 + static_cast<std::ptrdiff_t>(length));
    EXPECT_THAT(header,
                HasSubstr(R"("weight":{"data_offsets":[0,48],"dtype":"F64","shape":[2,3]})"));
    EXPECT_THAT(header, HasSubstr(R"("names":"pytorch")"));
    const Tensor<double>& w = parameters.of(fc.weight());
    double stored_0_1 = 0;  // row 0, column 1 of [out, in]: w(in = 1, out = 0)
    std::memcpy(&stored_0_1, bytes.data() + 8 + length + 8, 8);
    EXPECT_EQ(stored_0_1, w.data()[1 * 2 + 0]);
}

TEST(NamedCheckpoint, RefusesAnUnnamedParameterOnSaveAndStrangersOnLoad) {
    const ScratchFolder folder("named_refusals");
    Tape<float> tape;
    const Net net(tape);
    (void)tape.parameter(2.0f);
    const Network<float> network = std::move(tape).into_network();
    EXPECT_THAT(
        [&] {
            checkpoint::save(folder / "x.safetensors", network.parameters(), named_parameters(net));
        },
        ::testing::ThrowsMessage<CheckpointError>(HasSubstr("has no name")));
    const auto fc_only = named_parameters({{"fc", net.fc}});
    const std::string torch_file =
        std::string(TOPOS_SOURCE_DIR) + "/tests/golden/checkpoints/torch_cnn.safetensors";
    EXPECT_THAT([&] { (void)checkpoint::load(torch_file, network, fc_only); },
                ::testing::ThrowsMessage<CheckpointError>(
                    HasSubstr("conv1.weight: not a parameter of the model")));
    const Parameters<float> partial =
        checkpoint::load(torch_file, network, fc_only, {.strict = false});
    EXPECT_TRUE(test::bit_equal(partial.of(net.conv1.parameters()[0]),
                                network.parameters().of(net.conv1.parameters()[0])));
}

TEST(NamedCheckpoint, ConvertsBf16F16AndF64TensorsWhenAskedAndOnlyThen) {
    const ScratchFolder folder("named_convert");
    Tape<float> tape;
    const Linear<float> fc(tape, 2, 3, init::xavier(3));
    const Network<float> network = std::move(tape).into_network();
    const std::filesystem::path path = folder / "mixed.safetensors";
    // The weight as PyTorch holds it, [out, in], in BF16: 1.5, -0.25, 3.0, 0.1 (0x3dcd,
    // 0.10009765625), 2^-130 (a subnormal), -inf. The bias in F16: 1, 2^-24 (the
    // smallest subnormal), 65504 (the largest half).
    write_safetensors(path,
                      {{"weight",
                        "BF16",
                        {3, 2},
                        little_endian_16({0x3fc0, 0xbe80, 0x4040, 0x3dcd, 0x0008, 0xff80})},
                       {"bias", "F16", {3}, little_endian_16({0x3c00, 0x0001, 0x7bff})}});
    const auto names = named_parameters(fc);
    EXPECT_THAT([&] { (void)checkpoint::load(path, network, names); },
                ::testing::ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("weight: stored as BF16, not F32; read it with "
                                    "{.convert = true}"),
                          HasSubstr("bias: stored as F16"))));
    const Parameters<float> loaded = checkpoint::load(path, network, names, {.convert = true});
    const Tensor<float>& w = loaded.of(fc.weight());  // [in, out]: w(i, o) is stored (o, i)
    EXPECT_EQ(w(0, 0), 1.5F);
    EXPECT_EQ(w(1, 0), -0.25F);
    EXPECT_EQ(w(0, 1), 3.0F);
    EXPECT_EQ(w(1, 1), 0.10009765625F);
    EXPECT_EQ(w(0, 2), std::ldexp(1.0F, -130));
    EXPECT_EQ(w(1, 2), -std::numeric_limits<float>::infinity());
    const Tensor<float>& b = loaded.of(fc.bias());
    EXPECT_EQ(b(0), 1.0F);
    EXPECT_EQ(b(1), std::ldexp(1.0F, -24));
    EXPECT_EQ(b(2), 65504.0F);
    // F64 rounds once to the nearest float.
    write_safetensors(
        path,
        {{"weight", "F64", {3, 2}, little_endian_64({0.1, 1e300, -1e-50, 2.0, 3.0, 4.0})},
         {"bias", "F32", {3}, std::vector<std::uint8_t>(12, 0)}});
    const Parameters<float> narrowed = checkpoint::load(path, network, names, {.convert = true});
    EXPECT_EQ(narrowed.of(fc.weight())(0, 0), 0.1F);
    EXPECT_EQ(narrowed.of(fc.weight())(1, 0), std::numeric_limits<float>::infinity());
    EXPECT_EQ(narrowed.of(fc.weight())(0, 1), -0.0F);
    EXPECT_TRUE(std::signbit(narrowed.of(fc.weight())(0, 1)));
}

TEST(NamedCheckpoint, RefusesAnIntegerTensorEvenWhenConverting) {
    const ScratchFolder folder("named_convert_integer");
    Tape<float> tape;
    const Linear<float> fc(tape, 1, 1, init::xavier(3));
    const Network<float> network = std::move(tape).into_network();
    write_safetensors(folder / "ints.safetensors",
                      {{"weight", "I16", {1, 1}, little_endian_16({7})},
                       {"bias", "F32", {1}, std::vector<std::uint8_t>(4, 0)}});
    EXPECT_THAT(
        [&] {
            (void)checkpoint::load(
                folder / "ints.safetensors", network, named_parameters(fc), {.convert = true});
        },
        ::testing::ThrowsMessage<CheckpointError>(
            HasSubstr("weight: stored as I16, which topos does not read as numbers")));
}

// Saves a Linear by name, then tries a save with names[1] renamed to
// `bad_name`: it must be refused with a message holding `says`, and the file
// must still load as the first save wrote it.
void expect_name_refused_and_file_kept(const std::string& bad_name,
                                       const std::vector<std::string>& says) {
    const ScratchFolder folder("named_bad_name");
    const std::filesystem::path path = folder / "fc.safetensors";
    Tape<float> tape;
    const Linear<float> fc(tape, 3, 2, init::xavier(6));
    const Network<float> network = std::move(tape).into_network();
    const std::vector<NamedParameter> names = named_parameters({{"fc", fc}});
    const Parameters<float> good = network.parameters();
    checkpoint::save(path, good, names);

    std::vector<NamedParameter> renamed = names;
    renamed[1].name = bad_name;
    Parameters<float> other = good;
    for (const Symbol symbol : other.symbols()) {
        other = other.with(symbol, other.of(symbol) + Tensor<float>(1.0f));
    }
    std::string message;
    try {
        checkpoint::save(path, other, renamed);
        ADD_FAILURE() << "the save with the name " << bad_name.size() << " bytes long succeeded";
    } catch (const CheckpointError& error) {
        message = error.what();
    }
    for (const std::string& part : says) {
        EXPECT_THAT(message, HasSubstr(part));
    }
    EXPECT_THAT(message, HasSubstr("is left as it was"));
    const Parameters<float> loaded = checkpoint::load(path, network, names);
    for (const NamedParameter& named : names) {
        EXPECT_TRUE(test::bit_equal(loaded.of(named.symbol), good.of(named.symbol))) << named.name;
    }
    EXPECT_EQ(folder.entries(), std::set<std::string>{"fc.safetensors"});
}

TEST(NamedCheckpoint, SaveRefusesTheReservedNameMetadataAndKeepsTheLastGoodFile) {
    expect_name_refused_and_file_kept(
        "__metadata__",
        {"the name \"__metadata__\" (names[1], the parameter at node ", ") is reserved"});
}

TEST(NamedCheckpoint, SaveRefusesAnEmptyName) {
    expect_name_refused_and_file_kept("", {"the name \"\" (names[1], ", "is empty"});
}

TEST(NamedCheckpoint, SaveRefusesANameThatIsNotUtf8NamingTheByte) {
    expect_name_refused_and_file_kept(
        "fc.b\xff"
        "ias",
        {R"(the name "fc.b\xffias" (names[1], )",
         "not valid UTF-8 (byte 4, 0xff, is out of place)"});
    expect_name_refused_and_file_kept("fc.\xe2\x82", {"it ends inside a character"});
    expect_name_refused_and_file_kept("\xed\xa0\x80", {"byte 1, 0xa0"});  // a UTF-16 surrogate
    expect_name_refused_and_file_kept("\xc0\xae", {"byte 0, 0xc0"});      // an overlong '.'
}

TEST(NamedCheckpoint, SaveRefusesANameLongerThanTheLimit) {
    expect_name_refused_and_file_kept(
        std::string(checkpoint::longest_parameter_name + 1, 'a'),
        {"\"" + std::string(64, 'a') + "\"... (1025 bytes) (names[1], ",
         "is 1025 bytes long, more than the 1024 a checkpoint name may have"});
}

TEST(NamedCheckpoint, SaveRefusesANameGivenToTwoParameters) {
    expect_name_refused_and_file_kept(
        "fc.weight",
        {"the name \"fc.weight\" is given to two parameters (names[0], the parameter at node ",
         "; names[1], the parameter at node ",
         "): each tensor in a file needs its own name"});
}

TEST(NamedCheckpoint, SaveKeepsNamesAtTheLimitAndInOtherScripts) {
    const ScratchFolder folder("named_good_names");
    Tape<float> tape;
    const Linear<float> fc(tape, 3, 2, init::xavier(7));
    const Network<float> network = std::move(tape).into_network();
    std::vector<NamedParameter> names = named_parameters({{"fc", fc}});
    names[0].name = std::string(checkpoint::longest_parameter_name, 'w');
    names[1].name = "fc.\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";  // é € and an emoji
    checkpoint::save(folder / "fc.safetensors", network.parameters(), names);
    const Parameters<float> loaded = checkpoint::load(folder / "fc.safetensors", network, names);
    EXPECT_TRUE(test::bit_equal(loaded.values()[1], network.parameters().values()[1]));
}

Tensor<float> tensor_of(const nlohmann::json& document, const std::string& key) {
    const auto extents = document.at(key + "_shape").get<std::vector<std::size_t>>();
    return Tensor<float>(Shape(std::span<const std::size_t>(extents)),
                         document.at(key).get<std::vector<float>>());
}

// Loads `folder`'s torch_cnn.safetensors by name and compares the logits with
// torch's, within float32 rounding of differently ordered sums.
void expect_torch_logits(const std::string& folder) {
    std::ifstream in(folder + "/torch_cnn_logits.json");
    const nlohmann::json document = nlohmann::json::parse(in);
    const Tensor<float> batch = tensor_of(document, "input");
    Tape<float> tape;
    const Net net(tape);
    const Symbol logits = net.express(tape.input(batch));
    const Network<float> network = std::move(tape).into_network();
    const Parameters<float> parameters =
        checkpoint::load(folder + "/torch_cnn.safetensors", network, named_parameters(net));
    const Tensor<float> computed = network.forward(parameters).of(logits);
    const Tensor<float> expected = tensor_of(document, "logits");
    ASSERT_EQ(computed.shape(), expected.shape());
    for (std::size_t i = 0; i < expected.elements(); ++i) {
        EXPECT_NEAR(computed.data()[i], expected.data()[i], 1e-5) << "logit " << i;
    }
}

TEST(NamedCheckpoint, APyTorchStateDictGivesPyTorchsLogits) {
    expect_torch_logits(std::string(TOPOS_SOURCE_DIR) + "/tests/golden/checkpoints");
}

TEST(NamedCheckpoint, AStateDictWrittenByPyTorchNowGivesItsLogits) {
    if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "/usr/bin/python3 has no torch (Debian's python3-torch); the golden file "
                        "tests/golden/checkpoints/torch_cnn.safetensors was checked instead";
    }
    const ScratchFolder folder("torch_state_dict");
    const std::string command = "/usr/bin/python3 " + std::string(TOPOS_SOURCE_DIR) +
                                "/tools/torch-state-dict.py " + (folder / "").string() +
                                " >/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    expect_torch_logits((folder / "").string());
}

}  // namespace
}  // namespace topos
