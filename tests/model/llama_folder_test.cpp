// Released Llama folders (config.json, model.safetensors or shards under
// model.safetensors.index.json, Hugging Face's tensor names and PyTorch's
// layout), written here as another library writes them: a load gives the
// written values bit for bit (or rounded once, converting) and the same
// logits as the model they came from; every mismatch of a tensor or a
// configuration key is a CheckpointError naming it.
#include "model/llama_reference.hpp"
#include "model/module_checks.hpp"
#include "support/bit_equal.hpp"
#include "support/safetensors_writer.hpp"
#include "support/scratch_folder.hpp"
#include <topos/core/error.hpp>
#include <topos/model/llama_folder.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <system_error>
#include <vector>

namespace topos {
namespace {

using test::HandWrittenTensor;
using test::ScratchFolder;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr const char* tiny_config_json = R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 8,
  "initializer_range": 0.02,
  "intermediate_size": 12,
  "max_position_embeddings": 32,
  "model_type": "llama",
  "num_attention_heads": 2,
  "num_hidden_layers": 2,
  "num_key_value_heads": 1,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 10000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "float32",
  "vocab_size": 13
})";

void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path) << text;
}

// tiny_config_json with `key` set to `value` (its JSON text).
std::string with_key(const std::string& key, const std::string& value) {
    nlohmann::json config = nlohmann::json::parse(tiny_config_json);
    config[key] = nlohmann::json::parse(value);
    return config.dump();
}

// The element's bits as the dtype stores them, little-endian.
template <Element T>
void append_stored(std::vector<std::uint8_t>& bytes, T value, const std::string& dtype) {
    const auto append = [&bytes](std::uint64_t bits, int count) {
        for (int i = 0; i < count; ++i) {
            bytes.push_back(static_cast<std::uint8_t>((bits >> (8 * i)) & 0xffU));
        }
    };
    const auto as_float = static_cast<float>(value);
    if (dtype == "BF16") {
        append(bf16(as_float).bits(), 2);
    } else if (dtype == "F32") {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &as_float, sizeof bits);
        append(bits, 4);
    } else {  // F16, for values it holds exactly (normal, at most 11 significant bits)
        int exponent = 0;
        const double fraction = std::frexp(std::abs(double{as_float}), &exponent);
        const auto significand = static_cast<std::uint64_t>(std::ldexp(fraction, 11));
        const std::uint64_t sign = std::signbit(as_float) ? 0x8000U : 0U;
        append(as_float == 0 ? sign
                             : sign | static_cast<std::uint64_t>(exponent + 14) << 10U |
                                   (significand & 0x3ffU),
               2);
    }
}

// The model's parameters as a released folder holds them: Hugging Face's
// names, PyTorch's layout, `dtype`; the tensors in `shards` files.
template <Element T>
std::vector<std::vector<HandWrittenTensor>> released_tensors(const Llama<T>& model,
                                                             const Parameters<T>& parameters,
                                                             const std::string& dtype,
                                                             std::size_t shards) {
    std::vector<std::vector<HandWrittenTensor>> files(shards);
    std::size_t next = 0;
    for (const NamedParameter& named : model.named_parameters()) {
        const Tensor<T> value = parameters.of(named.symbol);
        const Shape shape = value.shape();
        HandWrittenTensor written{named.name, dtype, {}, {}};
        if (named.transposed_in_pytorch) {
            written.shape = {shape[1], shape[0]};
            for (std::size_t c = 0; c < shape[1]; ++c) {
                for (std::size_t r = 0; r < shape[0]; ++r) {
                    append_stored(written.bytes, value.data()[r * shape[1] + c], dtype);
                }
            }
        } else {
            written.shape.assign(shape.extents().begin(), shape.extents().end());
            for (const T element : value.data()) {
                append_stored(written.bytes, element, dtype);
            }
        }
        files[next++ % shards].push_back(std::move(written));
    }
    return files;
}

// Writes config.json and the tensors: model.safetensors, or shards and their index.
void write_folder(const std::filesystem::path& folder,
                  const std::vector<std::vector<HandWrittenTensor>>& files,
                  const std::string& config = tiny_config_json) {
    std::filesystem::create_directories(folder);
    write_text(folder / "config.json", config);
    if (files.size() == 1) {
        test::write_safetensors(folder / "model.safetensors", files[0]);
        return;
    }
    nlohmann::json map = nlohmann::json::object();
    for (std::size_t s = 0; s < files.size(); ++s) {
        const std::string shard = "model-0000" + std::to_string(s + 1) + "-of-0000" +
                                  std::to_string(files.size()) + ".safetensors";
        test::write_safetensors(folder / shard, files[s]);
        for (const HandWrittenTensor& tensor : files[s]) {
            map[tensor.name] = shard;
        }
    }
    const nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", map}};
    write_text(folder / "model.safetensors.index.json", index.dump(2));
}

// A tiny Llama of a configuration (tiny_config_json) with random parameters: its tape's
// network, its logits of six tokens, the model and the parameters.
template <Element T>
struct Source {
    explicit Source(const std::string& config = tiny_config_json)
        : model(tape, parse_llama_config(config), init::normal(1, 0.02)),
          logits(model.express(tape.indices(Shape{1, 6}, {1, 12, 0, 7, 7, 3}))),
          network(std::move(tape).into_network()),
          parameters(test::randomised(network, 2)) {}

    Tape<T> tape;
    Llama<T> model;
    Value<T> logits;
    Network<T> network;
    Parameters<T> parameters;
};

// The loaded model's logits of the same tokens, and its parameters by name.
template <Element T>
struct Loaded {
    std::map<std::string, Tensor<T>> by_name;
    Tensor<T> logits;
};

template <Element T>
Loaded<T> load(const std::filesystem::path& folder, checkpoint::ReadOptions options = {}) {
    const LlamaFolder opened(folder);
    Tape<T> tape;
    const Llama<T> model = opened.load(tape, options);
    const Value<T> logits = model.express(tape.indices(Shape{1, 6}, {1, 12, 0, 7, 7, 3}));
    const Network<T> network = std::move(tape).into_network();
    const Parameters<T> parameters = network.parameters();
    Loaded<T> loaded{{}, network.forward(parameters).of(logits)};
    for (const NamedParameter& named : model.named_parameters()) {
        loaded.by_name.emplace(named.name, parameters.of(named.symbol));
    }
    return loaded;
}

template <Element T>
void expect_same_model(const Source<T>& source, const Loaded<T>& loaded) {
    for (const NamedParameter& named : source.model.named_parameters()) {
        EXPECT_TRUE(
            test::bit_equal(loaded.by_name.at(named.name), source.parameters.of(named.symbol)))
            << named.name;
    }
    EXPECT_TRUE(test::bit_equal(loaded.logits,
                                source.network.forward(source.parameters).of(source.logits)));
}

TEST(LlamaFolder, AFloatFolderLoadsBitForBitWithTheSameLogits) {
    const ScratchFolder scratch("llama_f32");
    const Source<float> source;
    write_folder(scratch / "model", released_tensors(source.model, source.parameters, "F32", 1));
    expect_same_model(source, load<float>(scratch / "model"));
}

TEST(LlamaFolder, ShardsUnderAnIndexLoadAsOneFile) {
    const ScratchFolder scratch("llama_shards");
    const Source<float> source;
    write_folder(scratch / "model", released_tensors(source.model, source.parameters, "F32", 3));
    const LlamaFolder folder(scratch / "model");
    EXPECT_EQ(folder.tensors().size(), source.model.named_parameters().size());
    EXPECT_EQ(folder.config(), source.model.config());
    expect_same_model(source, load<float>(scratch / "model"));
}

TEST(LlamaFolder, ABf16FolderLoadsIntoBf16BitForBitAndIntoFloatWhenConverting) {
    const ScratchFolder scratch("llama_bf16");
    const Source<bf16> source;
    write_folder(scratch / "model", released_tensors(source.model, source.parameters, "BF16", 2));
    expect_same_model(source, load<bf16>(scratch / "model"));
    EXPECT_THAT([&] { (void)load<float>(scratch / "model"); },
                ::testing::ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr("model.embed_tokens.weight: stored as BF16, not F32"),
                          HasSubstr("{.convert = true}"))));
    const Loaded<float> widened = load<float>(scratch / "model", {.convert = true});
    for (const NamedParameter& named : source.model.named_parameters()) {
        const Tensor<bf16> stored = source.parameters.of(named.symbol);
        EXPECT_TRUE(test::bit_equal(widened.by_name.at(named.name), stored.convert<float>()))
            << named.name;
    }
}

TEST(LlamaFolder, AnF16FolderLoadsIntoFloatWhenConverting) {
    const ScratchFolder scratch("llama_f16");
    Source<float> source;
    std::vector<Tensor<float>> values;
    for (const Tensor<float>& value : source.parameters.values()) {
        values.push_back(Tensor<float>::generate(value.shape(), [&](std::span<float> out) {
            for (std::size_t i = 0; i < out.size(); ++i) {
                out[i] = std::round(value.data()[i] * 256) / 256;  // held exactly by F16
            }
        }));
    }
    source.parameters = source.parameters.with_values(std::move(values));
    write_folder(scratch / "model", released_tensors(source.model, source.parameters, "F16", 1));
    expect_same_model(source, load<float>(scratch / "model", {.convert = true}));
}

TEST(LlamaFolder, RecomputedBuffersAndATiedModelsHeadArePassedOver) {
    const ScratchFolder scratch("llama_passed_over");
    const std::string tied = with_key("tie_word_embeddings", "true");
    const Source<float> source(tied);
    auto files = released_tensors(source.model, source.parameters, "F32", 1);
    ASSERT_EQ(files[0].front().name, "model.embed_tokens.weight");
    HandWrittenTensor head = files[0].front();
    head.name = "lm_head.weight";  // as a tied model's state_dict holds it
    files[0].push_back(head);
    files[0].push_back(
        {"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", {2}, std::vector<std::uint8_t>(8)});
    write_folder(scratch / "model", files, tied);
    expect_same_model(source, load<float>(scratch / "model"));
}

TEST(LlamaFolder, EveryMissingMisshapenOrForeignTensorIsNamedBeforeAnyIsRead) {
    const ScratchFolder scratch("llama_mismatches");
    const Source<float> source;
    auto files = released_tensors(source.model, source.parameters, "F32", 1);
    std::erase_if(files[0],
                  [](const HandWrittenTensor& t) { return t.name == "model.norm.weight"; });
    for (HandWrittenTensor& tensor : files[0]) {
        if (tensor.name == "model.layers.1.mlp.up_proj.weight") {
            tensor.shape = {8, 12};  // topos's layout, not PyTorch's
        }
    }
    files[0].push_back(
        {"model.layers.0.self_attn.q_norm.weight", "F32", {1}, std::vector<std::uint8_t>(4)});
    write_folder(scratch / "model", files);
    const LlamaFolder folder(scratch / "model");
    Tape<float> tape;
    EXPECT_THAT([&] { (void)folder.load(tape); },
                ::testing::ThrowsMessage<CheckpointError>(AllOf(
                    HasSubstr("model.norm.weight: missing"),
                    HasSubstr("model.layers.1.mlp.up_proj.weight: has shape [8, 12], the "
                              "configuration's model holds [12, 8] (PyTorch's layout, [out, in])"),
                    HasSubstr("model.layers.0.self_attn.q_norm.weight\": the configuration's model "
                              "holds no such tensor"))));
}

TEST(LlamaFolder, AnIndexThatLeavesTheFolderOrMisplacesATensorIsRefused) {
    const ScratchFolder scratch("llama_index");
    const Source<float> source;
    write_folder(scratch / "model", released_tensors(source.model, source.parameters, "F32", 2));
    const std::filesystem::path index = scratch / "model" / "model.safetensors.index.json";
    write_text(index, R"({"weight_map": {"model.norm.weight": "../elsewhere.safetensors"}})");
    EXPECT_THAT([&] { (void)LlamaFolder(scratch / "model"); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("inside the folder")));
    write_text(index, R"({"weight_map": {"model.norm.weight": "model-00001-of-00002.safetensors",
                                          "lm_head.weight": "model-00001-of-00002.safetensors"}})");
    EXPECT_THAT([&] { (void)LlamaFolder(scratch / "model"); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("which does not hold it")));
    std::filesystem::remove(index);
    EXPECT_THAT([&] { (void)LlamaFolder(scratch / "model"); },
                ::testing::ThrowsMessage<CheckpointError>(HasSubstr("model.safetensors")));
}

template <Element T>
void expect_saved_folder_loads_back(const std::string& scratch_name) {
    const ScratchFolder scratch(scratch_name);
    const Source<T> source(with_key("tie_word_embeddings", "true"));
    save_llama_folder(scratch / "saved", source.model, source.parameters);
    EXPECT_EQ(LlamaFolder(scratch / "saved").config(), source.model.config());
    expect_same_model(source, load<T>(scratch / "saved"));
}

TEST(LlamaFolder, ASavedFolderLoadsBackBitForBit) {
    expect_saved_folder_loads_back<float>("llama_saved_f32");
    expect_saved_folder_loads_back<bf16>("llama_saved_bf16");
    expect_saved_folder_loads_back<double>("llama_saved_f64");
}

// The working folder moved to `folder` for the guard's life, and back after.
class WorkingFolder {
public:
    explicit WorkingFolder(const std::filesystem::path& folder)
        : before_(std::filesystem::current_path()) {
        std::filesystem::current_path(folder);
    }

    WorkingFolder(const WorkingFolder&) = delete;
    WorkingFolder& operator=(const WorkingFolder&) = delete;

    ~WorkingFolder() {
        std::error_code ignored;
        std::filesystem::current_path(before_, ignored);
    }

private:
    std::filesystem::path before_;
};

// docs/guide/language-models.md quotes this test's loads of a downloaded
// folder; here the folder is a tiny one of that name, stored as BF16.
TEST(LlamaFolder, TheGuidesDownloadedFolderLoadsInBf16AndConvertedToFloat) {
    const ScratchFolder scratch("llama_guide");
    const Source<bf16> source;
    save_llama_folder(scratch / "TinyLlama-1.1B-Chat-v1.0", source.model, source.parameters);
    const WorkingFolder inside(scratch / ".");
    const topos::LlamaFolder folder("TinyLlama-1.1B-Chat-v1.0");
    topos::Tape<topos::bf16> tape;
    const topos::Llama<topos::bf16> llama = folder.load(tape);
    topos::Tape<float> float_tape;
    const topos::Llama<float> widened = folder.load(float_tape, {.convert = true});
    EXPECT_EQ(llama.config(), source.model.config());
    const Parameters<bf16> loaded = std::move(tape).into_network().parameters();
    const Parameters<float> converted = std::move(float_tape).into_network().parameters();
    const auto names = llama.named_parameters();
    for (std::size_t i = 0; i < names.size(); ++i) {
        const Tensor<bf16> expected =
            source.parameters.of(source.model.named_parameters()[i].symbol);
        EXPECT_TRUE(test::bit_equal(loaded.of(names[i].symbol), expected)) << names[i].name;
        EXPECT_TRUE(test::bit_equal(converted.of(widened.named_parameters()[i].symbol),
                                    expected.convert<float>()))
            << names[i].name;
    }
}

TEST(LlamaConfigFile, WrittenConfigurationsReadBackEqual) {
    LlamaConfig config{.vocabulary = 32000,
                       .hidden = 64,
                       .intermediate = 96,
                       .layers = 3,
                       .heads = 4,
                       .key_value_heads = 2,
                       .rope_theta = 500000.0,
                       .rms_norm_eps = 1e-5,
                       .max_positions = 4096,
                       .tied_embeddings = true};
    EXPECT_EQ(parse_llama_config(llama_config_json(config)), config);
    config.rope_theta = 10000.5;
    config.rms_norm_eps = 3.0e-7;
    EXPECT_EQ(parse_llama_config(llama_config_json(config, "bfloat16")), config);
}

TEST(LlamaConfigFile, ReadsTinyLlamasConfiguration) {
    const LlamaConfig config = parse_llama_config(R"({
      "architectures": ["LlamaForCausalLM"], "attention_bias": false, "bos_token_id": 1,
      "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
      "intermediate_size": 5632, "max_position_embeddings": 2048, "model_type": "llama",
      "num_attention_heads": 32, "num_hidden_layers": 22, "num_key_value_heads": 4,
      "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.35.0",
      "use_cache": true, "vocab_size": 32000})");
    EXPECT_EQ(config, test::llama::tiny_llama_1_1b());
}

TEST(LlamaConfigFile, AbsentKeysTakeHuggingFacesDefaults) {
    const LlamaConfig config = parse_llama_config(
        R"({"vocab_size": 10, "hidden_size": 8, "intermediate_size": 4,
            "num_hidden_layers": 1, "num_attention_heads": 2})");
    EXPECT_EQ(config.key_value_heads, 2U);
    EXPECT_EQ(config.rope_theta, 10000.0);
    EXPECT_EQ(config.rms_norm_eps, 1e-6);
    EXPECT_EQ(config.max_positions, 2048U);
    EXPECT_FALSE(config.tied_embeddings);
}

TEST(LlamaConfigFile, WhatThisLlamaDoesNotComputeIsRefusedByKey) {
    const auto refusal = [](const std::string& text) {
        try {
            (void)parse_llama_config(text, "folder/config.json");
        } catch (const CheckpointError& error) {
            return std::string(error.what());
        }
        return std::string("accepted");
    };
    EXPECT_THAT(refusal(with_key("model_type", R"("mistral")")),
                HasSubstr("\"model_type\" is \"mistral\"; this Llama computes \"llama\" only"));
    EXPECT_THAT(refusal(with_key("hidden_act", R"("gelu")")), HasSubstr("\"hidden_act\""));
    EXPECT_THAT(refusal(with_key("rope_scaling", R"({"type": "linear", "factor": 2.0})")),
                HasSubstr("\"rope_scaling\" is set"));
    EXPECT_THAT(refusal(with_key("attention_bias", "true")), HasSubstr("attention_bias"));
    EXPECT_THAT(refusal(with_key("head_dim", "8")), HasSubstr("\"head_dim\" is 8"));
    EXPECT_THAT(refusal(with_key("hidden_size", R"("8")")),
                HasSubstr("\"hidden_size\" must be a non-negative integer; it holds a string"));
    EXPECT_THAT(refusal(with_key("num_hidden_layers", "2.5")),
                HasSubstr("\"num_hidden_layers\" must be a non-negative integer; it holds 2.5"));
    EXPECT_THAT(refusal(with_key("num_key_value_heads", "3")),
                AllOf(HasSubstr("folder/config.json"), HasSubstr("num_key_value_heads (3)")));
    EXPECT_THAT(refusal(R"({"hidden_size": 8})"), HasSubstr("\"vocab_size\" is missing"));
    EXPECT_THAT(refusal(R"({"vocab_size": 10,})"),
                HasSubstr("folder/config.json is not valid JSON: a member's name (a string) "
                          "expected at byte 18"));
    EXPECT_THAT(refusal(R"({"vocab_size": 10, "vocab_size": 11})"),
                HasSubstr("the key \"vocab_size\" written twice at byte 19"));
    EXPECT_THAT(refusal("[1, 2]"), HasSubstr("it holds an array, not an object"));
    EXPECT_THAT(refusal(R"({"a": "\ud800"})"), HasSubstr("high surrogate"));
    EXPECT_THAT(refusal(std::string(100, '[') + std::string(100, ']')),
                HasSubstr("nesting deeper than 64"));
    EXPECT_THAT(refusal(R"({"a": 1} x)"), HasSubstr("text after the value at byte 9"));
}

TEST(LlamaConfigFile, StringsDecodeEscapesAndSurrogatePairs) {
    // An unknown key may hold any JSON; a well-formed one with escapes is read past.
    EXPECT_NO_THROW((void)parse_llama_config(
        with_key("_name_or_path", R"("caf\u00e9 \ud83e\udd99 \"q\" \\ \/ \n")")));
}

}  // namespace
}  // namespace topos
