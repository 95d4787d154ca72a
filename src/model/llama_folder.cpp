// A released Llama folder: config.json read into a LlamaConfig (refusing
// what this Llama does not compute, by key), the tensor files' headers
// gathered through the index, every tensor checked against the model before
// any is read, and the model recorded with initialisers that read each
// parameter's tensor as the constructor asks for it.
#include "core/float_text.hpp"
#include "model/checkpoint_file.hpp"
#include "model/checkpoint_names.hpp"
#include "model/checkpoint_tensors.hpp"
#include "model/json.hpp"
#include "ops/movement.hpp"
#include <topos/core/error.hpp>
#include <topos/model/llama_folder.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <type_traits>
#include <utility>

namespace topos {
namespace {

namespace json = detail::json;

// Reads the configuration's keys, each checked for its type.
class ConfigKeys {
public:
    ConfigKeys(const json::Value& root, const std::string& source) : root_(root), source_(source) {
        if (!std::holds_alternative<json::Object>(root.held)) {
            refuse("it holds " + std::string(root.kind()) + ", not an object");
        }
    }

    [[noreturn]] void refuse(const std::string& why) const {
        throw CheckpointError(source_ + ": " + why);
    }

    std::size_t size(const std::string& key, std::optional<std::size_t> otherwise = {}) const {
        const json::Value* value = root_.member(key);
        if (value == nullptr || std::holds_alternative<std::nullptr_t>(value->held)) {
            if (otherwise) {
                return *otherwise;
            }
            refuse("\"" + key + "\" is missing; a Llama configuration gives it");
        }
        const auto* number = std::get_if<json::Number>(&value->held);
        std::size_t parsed = 0;
        if (number == nullptr || !number->integer || number->text.front() == '-' ||
            std::from_chars(number->text.data(), number->text.data() + number->text.size(), parsed)
                    .ec != std::errc()) {
            refuse("\"" + key + "\" must be a non-negative integer; it holds " +
                   (number ? number->text : std::string(value->kind())));
        }
        return parsed;
    }

    double real(const std::string& key, double otherwise) const {
        const json::Value* value = root_.member(key);
        if (value == nullptr || std::holds_alternative<std::nullptr_t>(value->held)) {
            return otherwise;
        }
        const auto* number = std::get_if<json::Number>(&value->held);
        if (number == nullptr) {
            refuse("\"" + key + "\" must be a number; it holds " + value->kind());
        }
        return std::strtod(number->text.c_str(), nullptr);
    }

    bool flag(const std::string& key, bool otherwise) const {
        const json::Value* value = root_.member(key);
        if (value == nullptr || std::holds_alternative<std::nullptr_t>(value->held)) {
            return otherwise;
        }
        const auto* held = std::get_if<bool>(&value->held);
        if (held == nullptr) {
            refuse("\"" + key + "\" must be true or false; it holds " + value->kind());
        }
        return *held;
    }

    // Refuses `key` unless it is absent, null, or the string `expected`.
    void require_text(const std::string& key, const std::string& expected) const {
        const json::Value* value = root_.member(key);
        if (value == nullptr || std::holds_alternative<std::nullptr_t>(value->held)) {
            return;
        }
        const auto* text = std::get_if<std::string>(&value->held);
        if (text == nullptr || *text != expected) {
            refuse("\"" + key + "\" is " +
                   (text ? "\"" + *text + "\"" : std::string(value->kind())) +
                   "; this Llama computes \"" + expected + "\" only");
        }
    }

    // Refuses `key` unless it is absent or null.
    void require_absent(const std::string& key, const std::string& why) const {
        const json::Value* value = root_.member(key);
        if (value != nullptr && !std::holds_alternative<std::nullptr_t>(value->held)) {
            refuse("\"" + key + "\" is set; " + why);
        }
    }

private:
    const json::Value& root_;
    const std::string& source_;
};

// What a tensor of the folder must be for the model to hold it.
struct Expected {
    std::string name;
    Shape stored;     // in the file: PyTorch's [out, in] for a projection
    bool transposed;  // topos holds [in, out]
};

// The tensors a model of `config` draws, in the order its constructor draws
// them: the embedding and the projections (`weights`), and the norms.
struct ExpectedTensors {
    std::vector<Expected> weights;
    std::vector<Expected> norms;
};

ExpectedTensors expected_tensors(const LlamaConfig& c) {
    const std::size_t key_value = c.head_width() * c.key_value_heads;
    ExpectedTensors expected;
    expected.weights.push_back({"model.embed_tokens.weight", Shape{c.vocabulary, c.hidden}, false});
    for (std::size_t i = 0; i < c.layers; ++i) {
        const std::string layer = "model.layers." + std::to_string(i) + ".";
        const auto projection = [&](const std::string& name, std::size_t out, std::size_t in) {
            expected.weights.push_back({layer + name + ".weight", Shape{out, in}, true});
        };
        projection("self_attn.q_proj", c.hidden, c.hidden);
        projection("self_attn.k_proj", key_value, c.hidden);
        projection("self_attn.v_proj", key_value, c.hidden);
        projection("self_attn.o_proj", c.hidden, c.hidden);
        projection("mlp.gate_proj", c.intermediate, c.hidden);
        projection("mlp.up_proj", c.intermediate, c.hidden);
        projection("mlp.down_proj", c.hidden, c.intermediate);
        for (const char* norm : {"input_layernorm", "post_attention_layernorm"}) {
            expected.norms.push_back({layer + norm + ".weight", Shape{c.hidden}, false});
        }
    }
    expected.norms.push_back({"model.norm.weight", Shape{c.hidden}, false});
    if (!c.tied_embeddings) {
        expected.weights.push_back({"lm_head.weight", Shape{c.vocabulary, c.hidden}, true});
    }
    return expected;
}

// Tensors a released folder may hold that the model does not: buffers the
// model recomputes, and a tied model's copy of its embedding.
bool passed_over(const std::string& name, const LlamaConfig& config) {
    const std::string buffer = "rotary_emb.inv_freq";
    const bool recomputed = name.size() >= buffer.size() &&
                            name.compare(name.size() - buffer.size(), buffer.size(), buffer) == 0;
    return recomputed || (config.tied_embeddings && name == "lm_head.weight");
}

// A tensor's stored bytes as a tensor of T, transposed where asked (a matrix
// [rows, columns] to [columns, rows]), written once into its buffer: on a
// little-endian processor read in place where T is how it is stored (the
// transpose in vector tiles), bf16 widened to float by its bits (exact; a
// transposed one is first transposed as bf16 into `bf16_scratch`, then
// widened in order); otherwise through checkpoint_tensors.hpp. `bytes` is
// aligned for any element (operator new's alignment).
template <Element T>
Tensor<T> tensor_of(std::span<const std::byte> bytes,
                    const detail::TensorEntry& entry,
                    bool transpose,
                    std::span<bf16> bf16_scratch) {
    const std::size_t rows = transpose ? entry.shape[0] : 0;
    const std::size_t columns = transpose ? entry.shape[1] : 0;
    const Shape shape = transpose ? Shape{columns, rows} : entry.shape;
    if constexpr (std::endian::native == std::endian::little) {
        if (entry.dtype == detail::dtype_name<T>()) {
            return Tensor<T>::generate(shape, [&](std::span<T> out) {
                if (transpose) {
                    const T* stored = reinterpret_cast<const T*>(bytes.data());
                    detail::transpose_rows(stored, out.data(), rows, columns, 0, rows);
                } else {
                    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
                }
            });
        }
        if constexpr (std::is_same_v<T, float>) {
            if (entry.dtype == "BF16") {
                const bf16* stored = reinterpret_cast<const bf16*>(bytes.data());
                if (transpose) {
                    detail::transpose_rows(stored, bf16_scratch.data(), rows, columns, 0, rows);
                    stored = bf16_scratch.data();
                }
                return Tensor<float>::generate(shape, [&](std::span<float> out) {
                    for (std::size_t i = 0; i < out.size(); ++i) {
                        out[i] = static_cast<float>(stored[i]);
                    }
                });
            }
        }
    }
    Tensor<T> read = entry.dtype == detail::dtype_name<T>()
                         ? detail::from_little_endian<T>(bytes, entry.shape)
                         : detail::converted_from<T>(bytes, entry.dtype, entry.shape);
    return transpose ? detail::transposed(read) : read;
}

// An initialiser that reads, at each draw, the next expected tensor from its
// file, in the model's layout. Each file is opened and its header read once;
// each tensor's bytes go into one scratch buffer, reused, and from there once
// into the tensor (transposed on the way where the model holds the other layout).
class FolderReads {
public:
    FolderReads(const std::vector<Expected>& queue,
                const std::map<std::string, const FolderTensor*>& by_name,
                checkpoint::ReadOptions options)
        : queue_(queue), by_name_(by_name), options_(options) {}

    template <Element T>
    Tensor<T> make(const Shape& shape) {
        if (next_ == queue_.size()) {
            throw Error("a Llama drew more tensors than its folder's list holds (" +
                        std::to_string(queue_.size()) + ")");
        }
        const Expected& expected = queue_[next_++];
        Tensor<T> read =
            read_tensor<T>(*by_name_.at(expected.name), expected.name, expected.transposed);
        if (read.shape() != shape) {
            throw Error("the tensor " + expected.name + " was read as " + read.shape().str() +
                        " where the model draws " + shape.str());
        }
        return read;
    }

    bool finished() const { return next_ == queue_.size(); }

private:
    template <Element T>
    Tensor<T> read_tensor(const FolderTensor& tensor, const std::string& name, bool transpose) {
        detail::SafetensorsReader& reader = reader_of(tensor.file);
        const auto found = reader.header().tensors.find(name);
        if (found == reader.header().tensors.end()) {
            throw CheckpointError("the checkpoint " + tensor.file.string() +
                                  " no longer holds the tensor " + detail::printable_name(name) +
                                  ": it changed while it was read");
        }
        const detail::TensorEntry& entry = found->second;
        if (!options_.convert && entry.dtype != detail::dtype_name<T>()) {
            throw CheckpointError("the tensor " + detail::printable_name(name) + " of " +
                                  tensor.file.string() + " is stored as " + entry.dtype +
                                  " and the model holds " + detail::dtype_name<T>() +
                                  " (load with {.convert = true} to round it)");
        }
        const std::span<std::byte> bytes = scratch(entry.end - entry.begin);
        reader.read_tensor_into(entry, bytes);
        if (transpose && entry.shape.rank() != 2) {
            throw CheckpointError("the tensor " + detail::printable_name(name) + " of " +
                                  tensor.file.string() + " is " + entry.shape.str() +
                                  ", not the matrix the model holds transposed");
        }
        const bool widened_transpose =
            transpose && std::is_same_v<T, float> && entry.dtype == "BF16";
        return tensor_of<T>(
            bytes,
            entry,
            transpose,
            widened_transpose ? bf16_scratch(entry.shape.elements()) : std::span<bf16>{});
    }

    detail::SafetensorsReader& reader_of(const std::filesystem::path& file) {
        auto found = readers_.find(file);
        if (found == readers_.end()) {
            found = readers_.emplace(file, std::make_unique<detail::SafetensorsReader>(file)).first;
        }
        return *found->second;
    }

    std::span<bf16> bf16_scratch(std::size_t elements) {
        if (elements > bf16_scratch_size_) {
            bf16_scratch_.reset(new bf16[elements]);
            bf16_scratch_size_ = elements;
        }
        return {bf16_scratch_.get(), elements};
    }

    std::span<std::byte> scratch(std::size_t bytes) {
        if (bytes > scratch_size_) {
            scratch_.reset(new std::byte[bytes]);  // not zeroed: every byte is read over
            scratch_size_ = bytes;
        }
        return {scratch_.get(), bytes};
    }

    const std::vector<Expected>& queue_;
    const std::map<std::string, const FolderTensor*>& by_name_;
    checkpoint::ReadOptions options_;
    std::size_t next_ = 0;
    std::map<std::filesystem::path, std::unique_ptr<detail::SafetensorsReader>> readers_;
    std::unique_ptr<std::byte[]> scratch_;
    std::size_t scratch_size_ = 0;
    std::unique_ptr<bf16[]> bf16_scratch_;  // a transposed BF16 matrix on its way to float
    std::size_t bf16_scratch_size_ = 0;
};

// The names an index.json maps to each shard, checked to stay in the folder.
std::map<std::filesystem::path, std::set<std::string>> shards_of(
    const std::filesystem::path& folder, const std::filesystem::path& index) {
    const std::string source = index.string();
    const json::Value root = json::parse(json::read_text_file(index), source);
    const json::Value* map = root.member("weight_map");
    const auto* entries = map ? std::get_if<json::Object>(&map->held) : nullptr;
    if (entries == nullptr) {
        throw CheckpointError(source +
                              ": \"weight_map\" must be an object of tensor names and "
                              "the shards holding them");
    }
    std::map<std::filesystem::path, std::set<std::string>> shards;
    for (const auto& [name, file] : *entries) {
        const auto* shard = std::get_if<std::string>(&file.held);
        const std::filesystem::path relative = shard ? std::filesystem::path(*shard) : "";
        if (shard == nullptr || relative.empty() || relative.is_absolute() ||
            relative.lexically_normal().string().starts_with("..")) {
            throw CheckpointError(source + ": the tensor " + detail::printable_name(name) +
                                  " must map to a shard's file name inside the folder");
        }
        shards[folder / relative].insert(name);
    }
    return shards;
}

}  // namespace

LlamaConfig parse_llama_config(std::string_view text, const std::string& source) {
    const json::Value root = json::parse(text, source);
    const ConfigKeys keys(root, source);
    keys.require_text("model_type", "llama");
    keys.require_text("hidden_act", "silu");
    keys.require_absent("rope_scaling", "this Llama computes the unscaled rotary embedding only");
    if (keys.flag("attention_bias", false) || keys.flag("mlp_bias", false)) {
        keys.refuse(
            "\"attention_bias\" or \"mlp_bias\" is true; this Llama's projections have "
            "no biases");
    }
    LlamaConfig config;
    config.vocabulary = keys.size("vocab_size");
    config.hidden = keys.size("hidden_size");
    config.intermediate = keys.size("intermediate_size");
    config.layers = keys.size("num_hidden_layers");
    config.heads = keys.size("num_attention_heads");
    config.key_value_heads = keys.size("num_key_value_heads", config.heads);
    config.rope_theta = keys.real("rope_theta", 10000.0);
    config.rms_norm_eps = keys.real("rms_norm_eps", 1e-6);
    config.max_positions = keys.size("max_position_embeddings", 2048);
    config.tied_embeddings = keys.flag("tie_word_embeddings", false);
    if (const std::size_t head_dim = keys.size("head_dim", config.head_width());
        head_dim != config.head_width()) {
        keys.refuse("\"head_dim\" is " + std::to_string(head_dim) +
                    "; this Llama's heads are hidden_size / num_attention_heads = " +
                    std::to_string(config.head_width()) + " wide");
    }
    try {
        config.check();
    } catch (const ShapeError& error) {
        keys.refuse(error.what());
    }
    return config;
}

LlamaFolder::LlamaFolder(std::filesystem::path folder) : folder_(std::move(folder)) {
    const std::filesystem::path config = folder_ / "config.json";
    config_ = parse_llama_config(json::read_text_file(config), config.string());
    const std::filesystem::path index = folder_ / "model.safetensors.index.json";
    std::map<std::filesystem::path, std::set<std::string>> shards;
    if (std::filesystem::exists(index)) {
        shards = shards_of(folder_, index);
    } else {
        shards[folder_ / "model.safetensors"] = {};
    }
    std::map<std::string, std::filesystem::path> holder;
    for (const auto& [file, indexed] : shards) {
        for (checkpoint::StoredTensor& stored : checkpoint::tensors_in(file)) {
            if (!indexed.empty() && !indexed.contains(stored.name)) {
                continue;  // the index maps it to another shard
            }
            if (const auto [at, fresh] = holder.emplace(stored.name, file); !fresh) {
                throw CheckpointError("the tensor " + detail::printable_name(stored.name) +
                                      " is held by both " + at->second.string() + " and " +
                                      file.string());
            }
            tensors_.push_back({std::move(stored), file});
        }
        for (const std::string& name : indexed) {
            if (!holder.contains(name)) {
                throw CheckpointError(index.string() + " maps the tensor " +
                                      detail::printable_name(name) + " to " + file.string() +
                                      ", which does not hold it");
            }
        }
    }
    std::sort(tensors_.begin(), tensors_.end(), [](const FolderTensor& a, const FolderTensor& b) {
        return a.stored.name < b.stored.name;
    });
}

template <Element T>
Llama<T> LlamaFolder::load(Tape<T>& tape, checkpoint::ReadOptions options) const {
    const ExpectedTensors expected = expected_tensors(config_);
    std::map<std::string, const FolderTensor*> by_name;
    for (const FolderTensor& tensor : tensors_) {
        by_name.emplace(tensor.stored.name, &tensor);
    }
    detail::Mismatches mismatches;
    std::set<std::string> held;
    for (const auto* list : {&expected.weights, &expected.norms}) {
        for (const Expected& tensor : *list) {
            held.insert(tensor.name);
            const auto found = by_name.find(tensor.name);
            if (found == by_name.end()) {
                mismatches.add(tensor.name + ": missing");
                continue;
            }
            const checkpoint::StoredTensor& stored = found->second->stored;
            if (stored.shape != tensor.stored) {
                mismatches.add(tensor.name + ": has shape " + stored.shape.str() +
                               ", the configuration's model holds " + tensor.stored.str() +
                               (tensor.transposed ? " (PyTorch's layout, [out, in])" : ""));
            }
            if (const std::string problem =
                    detail::unreadable_dtype<T>(stored.dtype, options.convert);
                !problem.empty()) {
                mismatches.add(tensor.name + ": " + problem);
            }
        }
    }
    for (const FolderTensor& tensor : tensors_) {
        if (!held.contains(tensor.stored.name) && !passed_over(tensor.stored.name, config_)) {
            mismatches.add(detail::printable_name(tensor.stored.name) +
                           ": the configuration's model holds no such tensor");
        }
    }
    mismatches.throw_if_any(folder_.string(), "a Llama of its config.json");
    FolderReads weights(expected.weights, by_name, options);
    FolderReads norms(expected.norms, by_name, options);
    Llama<T> model(tape, config_, weights, norms);
    if (!weights.finished() || !norms.finished()) {
        throw Error("a Llama drew fewer tensors than its folder's list holds");
    }
    return model;
}

std::string llama_config_json(const LlamaConfig& config, const std::string& dtype) {
    const auto real = [](double value) {
        std::array<char, 32> text{};
        const auto end = detail::to_chars(text.data(), text.data() + text.size(), value).ptr;
        return std::string(text.data(), end);
    };
    const auto size = [](std::size_t value) { return std::to_string(value); };
    const std::vector<std::pair<std::string, std::string>> members{
        {"architectures", "[\"LlamaForCausalLM\"]"},
        {"attention_bias", "false"},
        {"hidden_act", "\"silu\""},
        {"hidden_size", size(config.hidden)},
        {"intermediate_size", size(config.intermediate)},
        {"max_position_embeddings", size(config.max_positions)},
        {"mlp_bias", "false"},
        {"model_type", "\"llama\""},
        {"num_attention_heads", size(config.heads)},
        {"num_hidden_layers", size(config.layers)},
        {"num_key_value_heads", size(config.key_value_heads)},
        {"rms_norm_eps", real(config.rms_norm_eps)},
        {"rope_scaling", "null"},
        {"rope_theta", real(config.rope_theta)},
        {"tie_word_embeddings", config.tied_embeddings ? "true" : "false"},
        {"torch_dtype", "\"" + dtype + "\""},
        {"vocab_size", size(config.vocabulary)}};
    std::string text = "{\n";
    for (std::size_t i = 0; i < members.size(); ++i) {
        text += "  \"" + members[i].first + "\": " + members[i].second +
                (i + 1 < members.size() ? ",\n" : "\n");
    }
    return text + "}\n";
}

template <Element T>
void save_llama_folder(const std::filesystem::path& folder,
                       const Llama<T>& model,
                       const Parameters<T>& parameters) {
    std::vector<std::pair<std::string, Tensor<T>>> tensors;
    for (const NamedParameter& named : model.named_parameters()) {
        const Tensor<T>& value = parameters.of(named.symbol);
        tensors.emplace_back(named.name,
                             named.transposed_in_pytorch ? detail::transposed(value) : value);
    }
    std::filesystem::create_directories(folder);
    checkpoint::save_tensors(folder / "model.safetensors", tensors);
    const char* dtype = std::same_as<T, bf16> ? "bfloat16" : sizeof(T) == 4 ? "float32" : "float64";
    const std::string config = llama_config_json(model.config(), dtype);
    detail::replace_file_atomically(folder / "config.json", std::as_bytes(std::span(config)));
}

template void save_llama_folder(const std::filesystem::path&,
                                const Llama<float>&,
                                const Parameters<float>&);
template void save_llama_folder(const std::filesystem::path&,
                                const Llama<double>&,
                                const Parameters<double>&);
template void save_llama_folder(const std::filesystem::path&,
                                const Llama<bf16>&,
                                const Parameters<bf16>&);
template Llama<float> LlamaFolder::load(Tape<float>&, checkpoint::ReadOptions) const;
template Llama<double> LlamaFolder::load(Tape<double>&, checkpoint::ReadOptions) const;
template Llama<bf16> LlamaFolder::load(Tape<bf16>&, checkpoint::ReadOptions) const;

}  // namespace topos
