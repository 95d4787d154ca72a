// A released Llama model folder, as Hugging Face publishes it: config.json
// (the sizes), and the tensors in model.safetensors or in shards that
// model.safetensors.index.json maps them to, named "model.embed_tokens.weight",
// "model.layers.{i}.self_attn.{q,k,v,o}_proj.weight", ..., "lm_head.weight",
// stored as F32, BF16 or F16 (F64 too).
//
//   const topos::LlamaFolder folder("TinyLlama-1.1B-Chat-v1.0");
//   topos::Tape<topos::bf16> tape;
//   const topos::Llama<topos::bf16> llama = folder.load(tape, {.convert = true});
//
// Opening a folder reads config.json and the headers of its tensor files,
// nothing more; load() checks every tensor's presence, shape and dtype before
// it reads any, then reads them one at a time, each straight into the
// parameter that holds it (a projection transposed from PyTorch's [out, in]),
// so a load holds the model and one tensor in flight, never a second copy of
// the model. Every mismatch is a CheckpointError naming the tensor or the key.
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/llama.hpp>
#include <topos/run/parameters.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace topos {

// The sizes a config.json gives (see LlamaConfig for the keys; absent,
// num_key_value_heads is num_attention_heads, rope_theta 10000, rms_norm_eps
// 1e-6, max_position_embeddings 2048, tie_word_embeddings false). Throws
// CheckpointError, naming `source` and the key, for malformed JSON, a
// missing or mistyped size, and a configuration this Llama does not compute
// (a model_type other than "llama", a hidden_act other than "silu",
// rope_scaling, attention or MLP biases, a head_dim other than
// hidden_size / num_attention_heads), and for sizes LlamaConfig::check refuses.
LlamaConfig parse_llama_config(std::string_view json, const std::string& source = "config.json");

// config.json's text for `config`, as Hugging Face writes a Llama's
// (model_type "llama", hidden_act "silu", the sizes under their keys, and
// torch_dtype `dtype`: "float32", "bfloat16" or "float64").
std::string llama_config_json(const LlamaConfig& config, const std::string& dtype = "float32");

// Writes `model` with `parameters` as a released folder: config.json and
// model.safetensors, the tensors under Hugging Face's names, in PyTorch's
// layout, stored as T is (F32, F64 or BF16), each file replaced atomically;
// the folder is made if missing. LlamaFolder(folder).load<T> gives the same
// bits back.
template <Element T>
void save_llama_folder(const std::filesystem::path& folder,
                       const Llama<T>& model,
                       const Parameters<T>& parameters);

// One tensor of a model folder: what its file's header declares, and the file.
struct FolderTensor {
    checkpoint::StoredTensor stored;
    std::filesystem::path file;
};

// A model folder opened: its configuration and where each tensor is.
class LlamaFolder {
public:
    // Reads `folder`/config.json and the headers of its tensor files
    // (model.safetensors.index.json's shards, or model.safetensors). Throws
    // CheckpointError for a missing file, a malformed one, a tensor two
    // shards hold, and an index naming a shard outside the folder.
    explicit LlamaFolder(std::filesystem::path folder);

    // The folder.
    const std::filesystem::path& path() const { return folder_; }

    // Its configuration.
    const LlamaConfig& config() const { return config_; }

    // Every tensor its files hold, in the order of their names.
    const std::vector<FolderTensor>& tensors() const { return tensors_; }

    // The Llama of this configuration recorded on `tape`, its parameters
    // holding the folder's tensors: bit for bit where they are stored as T
    // is, rounded once to T with {.convert = true} (BF16 or F16 files into a
    // float model, F32 into bf16). Checks every tensor before reading one:
    // CheckpointError names each that is missing, has another shape, or is
    // stored as a dtype it cannot read, and each the model does not hold
    // (rotary_emb.inv_freq buffers, which the tables recompute, and a tied
    // model's lm_head.weight are passed over).
    template <Element T>
    Llama<T> load(Tape<T>& tape, checkpoint::ReadOptions options = {}) const;

private:
    std::filesystem::path folder_;
    LlamaConfig config_;
    std::vector<FolderTensor> tensors_;
};

extern template void save_llama_folder(const std::filesystem::path&,
                                       const Llama<float>&,
                                       const Parameters<float>&);
extern template void save_llama_folder(const std::filesystem::path&,
                                       const Llama<double>&,
                                       const Parameters<double>&);
extern template void save_llama_folder(const std::filesystem::path&,
                                       const Llama<bf16>&,
                                       const Parameters<bf16>&);
extern template Llama<float> LlamaFolder::load(Tape<float>&, checkpoint::ReadOptions) const;
extern template Llama<double> LlamaFolder::load(Tape<double>&, checkpoint::ReadOptions) const;
extern template Llama<bf16> LlamaFolder::load(Tape<bf16>&, checkpoint::ReadOptions) const;

}  // namespace topos
