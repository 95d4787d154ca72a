// Named tensors of any safetensors file: tensors_in lists the header, read_tensor
// reads one tensor alone, bit for bit in its own type (every bf16 bit pattern
// round-trips through save_tensors) or rounded once when asked to convert,
// and refusals name the file, the tensor and what to do.
#include "support/safetensors_writer.hpp"
#include "support/scratch_folder.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace topos {
namespace {

using test::little_endian_16;
using test::ScratchFolder;
using test::write_safetensors;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

Tensor<bf16> every_bf16() {
    std::vector<bf16> values;
    for (std::uint32_t bits = 0; bits < 0x10000U; ++bits) {
        values.push_back(bf16::from_bits(static_cast<std::uint16_t>(bits)));
    }
    return Tensor<bf16>(Shape{256, 256}, values);
}

TEST(TensorFile, SavesEveryBf16BitPatternAndReadsItBackBitForBit) {
    const ScratchFolder folder("tensor_file_bf16");
    const auto path = folder / "all.safetensors";
    const Tensor<bf16> all = every_bf16();
    checkpoint::save_tensors<bf16>(path, {{"all", all}, {"one", Tensor<bf16>(bf16(1.5F))}});
    EXPECT_TRUE(checkpoint::read_tensor<bf16>(path, "all").bit_equal(all));
    EXPECT_EQ(checkpoint::read_tensor<bf16>(path, "one").item().bits(), 0x3fc0U);
    // The header declares BF16, and the payload holds each bf16 little-endian.
    std::ifstream in(path, std::ios::binary);
    const std::vector<unsigned char> bytes{std::istreambuf_iterator<char>(in), {}};
    ASSERT_GT(bytes.size(), 8U);
    std::size_t length = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        length |= static_cast<std::size_t>(bytes[i]) << (8 * i);
    }
    const std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(length));
    EXPECT_THAT(header, HasSubstr(R"("dtype":"BF16","shape":[256,256])"));
    const std::size_t payload = 8 + length;
    EXPECT_EQ(bytes[payload + 2 * 0x3fc0], 0xc0U);  // the element 0x3fc0, low byte first
    EXPECT_EQ(bytes[payload + 2 * 0x3fc0 + 1], 0x3fU);
}

TEST(TensorFile, ListsEveryTensorWithItsDtypeAndShape) {
    const ScratchFolder folder("tensor_file_list");
    const auto path = folder / "model.safetensors";
    write_safetensors(path,
                      {{"model.norm.weight", "BF16", {2}, little_endian_16({0x3f80, 0x4000})},
                       {"lm_head.weight", "F16", {1, 2}, little_endian_16({0x3c00, 0x4000})},
                       {"step", "I16", {}, little_endian_16({7})}});
    EXPECT_EQ(checkpoint::tensors_in(path),
              (std::vector<checkpoint::StoredTensor>{{"lm_head.weight", "F16", Shape{1, 2}},
                                                     {"model.norm.weight", "BF16", Shape{2}},
                                                     {"step", "I16", Shape{}}}));
}

TEST(TensorFile, ReadsOneTensorInItsOwnTypeOrConvertedWhenAsked) {
    const ScratchFolder folder("tensor_file_convert");
    const auto path = folder / "model.safetensors";
    write_safetensors(path,
                      {{"norm", "BF16", {3}, little_endian_16({0x3f80, 0xc040, 0x3dcd})},
                       {"head", "F16", {2}, little_endian_16({0x3555, 0xfbff})}});
    const Tensor<bf16> norm = checkpoint::read_tensor<bf16>(path, "norm");
    EXPECT_EQ(norm(1).bits(), 0xc040U);
    EXPECT_THAT([&] { (void)checkpoint::read_tensor<float>(path, "norm"); },
                ThrowsMessage<CheckpointError>(
                    HasSubstr("the tensor \"norm\" of " + path.string() +
                              " is stored as BF16, not F32; read it with {.convert = true}")));
    const Tensor<float> widened = checkpoint::read_tensor<float>(path, "norm", {.convert = true});
    EXPECT_EQ(widened(0), 1.0F);
    EXPECT_EQ(widened(1), -3.0F);
    EXPECT_EQ(widened(2), 0.10009765625F);
    // F16 0x3555 is 1365 / 4096 = 0.333251953125; to bf16 it rounds to 0.333984375.
    const Tensor<bf16> head = checkpoint::read_tensor<bf16>(path, "head", {.convert = true});
    EXPECT_EQ(static_cast<float>(head(0)), 0.333984375F);
    EXPECT_EQ(static_cast<float>(head(1)), -65536.0F);  // -65504 rounds to -2^16
}

TEST(TensorFile, AMissingTensorNamesTheNearestNames) {
    const ScratchFolder folder("tensor_file_missing");
    const auto path = folder / "model.safetensors";
    write_safetensors(path,
                      {{"layers.0.attention.wq", "F32", {1}, std::vector<std::uint8_t>(4, 0)},
                       {"layers.0.attention.wk", "F32", {1}, std::vector<std::uint8_t>(4, 0)},
                       {"output", "F32", {1}, std::vector<std::uint8_t>(4, 0)}});
    EXPECT_THAT([&] { (void)checkpoint::read_tensor<float>(path, "layers.0.attention.wv"); },
                ThrowsMessage<CheckpointError>(
                    HasSubstr("has no tensor \"layers.0.attention.wv\"; the nearest names: "
                              "\"layers.0.attention.wk\", \"layers.0.attention.wq\", \"output\"")));
}

TEST(TensorFile, RefusesAnIntegerTensorEvenWhenConverting) {
    const ScratchFolder folder("tensor_file_integer");
    const auto path = folder / "model.safetensors";
    write_safetensors(path, {{"step", "I16", {}, little_endian_16({7})}});
    EXPECT_THAT([&] { (void)checkpoint::read_tensor<float>(path, "step", {.convert = true}); },
                ThrowsMessage<CheckpointError>(
                    HasSubstr("is stored as I16, which topos does not read as numbers")));
}

TEST(TensorFile, SaveRefusesABadNameAndKeepsTheLastFile) {
    const ScratchFolder folder("tensor_file_names");
    const auto path = folder / "kept.safetensors";
    checkpoint::save_tensors<float>(path, {{"weight", Tensor<float>(2.0F)}});
    EXPECT_THAT(
        [&] {
            checkpoint::save_tensors<float>(
                path, {{"weight", Tensor<float>(3.0F)}, {"__metadata__", Tensor<float>(4.0F)}});
        },
        ThrowsMessage<CheckpointError>(
            HasSubstr("the name \"__metadata__\" (tensors[1]) is reserved")));
    EXPECT_THAT(
        [&] {
            checkpoint::save_tensors<float>(
                path, {{"weight", Tensor<float>(3.0F)}, {"weight", Tensor<float>(4.0F)}});
        },
        ThrowsMessage<CheckpointError>(
            HasSubstr("is given to two tensors (tensors[0]; tensors[1])")));
    EXPECT_EQ(checkpoint::read_tensor<float>(path, "weight").item(), 2.0F);
}

}  // namespace
}  // namespace topos
