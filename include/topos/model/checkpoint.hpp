// topos::checkpoint: parameters and optimizer state in the safetensors format
// (an 8-byte little-endian header length, a JSON header, raw little-endian
// payloads), readable by the safetensors libraries of Python and Rust.
// Names: the parameter at node i is "parameter.<i>" (node indices are stable:
// recording the same model in the same order gives the same indices); an
// optimizer's buffers are "optimizer.<buffer>.parameter.<i>", with buffers
// "momentum" (Sgd) or "first_moment" and "second_moment" (Adam, AdamW), and
// the metadata holds "format": "topos", "optimizer" ("sgd", or "adam" for
// Adam and AdamW, which share AdamState) and "optimizer.steps".
// Element types: F32 for float, F64 for double. A round trip is bit-exact.
// Loading by name converts F16, BF16, F32 and F64 when asked ({.convert = true}).
// Single tensors of any safetensors file (a released model's shards) are listed
// and read by name with tensors_in and read_tensor, in float, double or bf16,
// and written with save_tensors.
//
// Checkpoints by name hold each parameter under its name from
// named_parameters(model) ("conv1.weight", ...), in PyTorch's layout (a
// Linear's weight transposed to [out, in]), with "format": "topos" and
// "names": "pytorch" in the metadata: a PyTorch state_dict of the same
// architecture, saved with safetensors, loads into the topos model, and a
// file topos saves loads into the PyTorch model.
#pragma once

#include <topos/graph/network.hpp>
#include <topos/model/named.hpp>
#include <topos/model/optim.hpp>
#include <topos/run/parameters.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace topos::checkpoint {

// "parameter.<node index>": the name a parameter is saved under.
std::string tensor_name(Symbol parameter);

// Writes `parameters` (and an optimizer's state) to `path`, replacing it
// atomically: written beside it under the temporary name
// ".<name>.tmp-<pid>-<counter>", synced, renamed over it, its folder synced.
// A failed save leaves the previous file as it was, and a concurrent load sees
// the previous file or the new one. Throws CheckpointError naming the call
// that failed and why.
//
// `path` must hold a regular file, a symbolic link to one (the file it names
// is replaced and the link stays), or nothing (a new file is made). Refused
// with CheckpointError before anything is created or opened: an empty path, a
// path ending in '/', and a path holding a directory, a FIFO, a device, a
// socket, a dangling symbolic link or a loop of links (load refuses the same).
// Past a file-size limit (RLIMIT_FSIZE, `ulimit -f`) the save throws
// CheckpointError ("File too large") instead of the process being killed:
// SIGXFSZ is blocked for the calling thread during the writes, and one they
// raise is discarded before the thread's signal mask is restored.
// A save that succeeds removes the temporary files of saves to the same file
// whose process no longer exists (killed mid-save); those of live processes,
// and every other file, are left alone. (Process ids are those of this
// machine's pid namespace: a folder shared with another machine or container
// may see its in-flight temporary files taken for stale ones, which makes
// that save fail, never the checkpoint.)
template <Element T>
void save(const std::filesystem::path& path, const Parameters<T>& parameters);
template <Element T>
void save(const std::filesystem::path& path,
          const Parameters<T>& parameters,
          const optim::SgdState<T>& state);
template <Element T>
void save(const std::filesystem::path& path,
          const Parameters<T>& parameters,
          const optim::AdamState<T>& state);

// The parameters saved in `path`, checked against `network`: every parameter
// must be present under its name with the network's element type and shape,
// and every other tensor must be a buffer of the optimizer the file declares,
// for a parameter of the network, with its element type and shape. Throws
// CheckpointError for a path that is not a regular file or a symbolic link to
// one (the paths save refuses: empty, ending in '/', a directory, FIFO,
// device, socket, dangling link or loop of links; none of them is opened) and
// for a malformed file (checked before its payload is read), naming every
// tensor that does not match and why.
template <Element T>
Parameters<T> load(const std::filesystem::path& path, const Network<T>& network);

// An optimizer state saved with the parameters, checked the same way; throws
// CheckpointError when the file holds no state of that optimizer.
template <ComputeElement T>
optim::SgdState<T> load_sgd_state(const std::filesystem::path& path, const Network<T>& network);
template <ComputeElement T>
optim::AdamState<T> load_adam_state(const std::filesystem::path& path, const Network<T>& network);

// The longest name a parameter may have in a checkpoint by name, in bytes.
inline constexpr std::size_t longest_parameter_name = 1024;

// Writes every parameter under its name in `names`, which must name each
// parameter of `parameters` once (CheckpointError names one that is not).
// Every name is checked before anything is written, so the previous file is
// left as it was: CheckpointError names (quoted, bytes outside printable ASCII
// as \xNN, cut after 64 bytes) and places (names[i] and its node) a name that
// is empty, is "__metadata__" (reserved by safetensors), is longer than
// longest_parameter_name bytes, is not valid UTF-8, or is given to two
// parameters. The path is checked as the other saves check it.
template <Element T>
void save(const std::filesystem::path& path,
          const Parameters<T>& parameters,
          const std::vector<NamedParameter>& names);

// The options of loading by name.
struct NamedLoadOptions {
    // Refuse tensors the names do not mention, as torch's load_state_dict(strict=True)
    // does; off, they are ignored (a BatchNorm's running statistics, say).
    bool strict = true;
    // Read tensors stored as F16, BF16, F32 or F64 into the network's element
    // type, each element rounded once to the nearest (ties to even; widening
    // is exact): a Llama checkpoint in BF16 into a Network<float>, say. Off, a
    // tensor must hold the network's own type.
    bool convert = false;
};

// The parameters of `network` read by name: every name must be in the file with
// the network's element type (or, with {.convert = true}, a floating-point
// type the loader converts) and the parameter's shape (transposed where
// PyTorch holds the transpose); a parameter `names` does not mention keeps the
// network's value. Throws CheckpointError naming every tensor that does not
// match and why.
template <Element T>
Parameters<T> load(const std::filesystem::path& path,
                   const Network<T>& network,
                   const std::vector<NamedParameter>& names,
                   NamedLoadOptions options = {});

// One tensor of a safetensors file, as its header declares it.
struct StoredTensor {
    std::string name;
    std::string dtype;  // "F32", "BF16", "F16", "I64", ... as written
    Shape shape;

    // Memberwise equality.
    friend bool operator==(const StoredTensor&, const StoredTensor&) = default;
};

// Every tensor a safetensors file holds (any file, a model's shard as well as
// a topos checkpoint), in the byte order of their names. Reads the header only.
// Throws CheckpointError for a file that is not a well-formed safetensors file.
std::vector<StoredTensor> tensors_in(const std::filesystem::path& path);

// How read_tensor reads.
struct ReadOptions {
    // Read a tensor stored as F16, BF16, F32 or F64 into T, each element
    // rounded once to the nearest (ties to even; widening is exact). Off, the
    // tensor must be stored as T is: F32 float, F64 double, BF16 bf16.
    bool convert = false;
};

// The tensor `name` of a safetensors file, reading its bytes alone, bit for
// bit when stored as T. Throws CheckpointError naming the file and the tensor
// when it is missing (with the names nearest to it) or stored as another
// dtype (with {.convert = true} to round it, where it is a float type).
template <TensorElement T>
Tensor<T> read_tensor(const std::filesystem::path& path,
                      const std::string& name,
                      ReadOptions options = {});

// Writes `tensors` under their names, each stored as T is (F32, F64 or BF16),
// bit for bit, replacing `path` atomically as save does; names are checked as
// save checks them, before anything is written.
template <TensorElement T>
void save_tensors(const std::filesystem::path& path,
                  const std::vector<std::pair<std::string, Tensor<T>>>& tensors);

extern template Tensor<float> read_tensor(const std::filesystem::path&,
                                          const std::string&,
                                          ReadOptions);
extern template Tensor<double> read_tensor(const std::filesystem::path&,
                                           const std::string&,
                                           ReadOptions);
extern template Tensor<bf16> read_tensor(const std::filesystem::path&,
                                         const std::string&,
                                         ReadOptions);
extern template Tensor<bf16> read_tensor(const std::filesystem::path&,
                                         const std::string&,
                                         ReadOptions);
extern template void save_tensors(const std::filesystem::path&,
                                  const std::vector<std::pair<std::string, Tensor<float>>>&);
extern template void save_tensors(const std::filesystem::path&,
                                  const std::vector<std::pair<std::string, Tensor<double>>>&);
extern template void save_tensors(const std::filesystem::path&,
                                  const std::vector<std::pair<std::string, Tensor<bf16>>>&);
extern template void save(const std::filesystem::path&, const Parameters<float>&);
extern template void save(const std::filesystem::path&, const Parameters<double>&);
extern template void save(const std::filesystem::path&, const Parameters<bf16>&);
extern template void save(const std::filesystem::path&,
                          const Parameters<float>&,
                          const optim::SgdState<float>&);
extern template void save(const std::filesystem::path&,
                          const Parameters<double>&,
                          const optim::SgdState<double>&);
extern template void save(const std::filesystem::path&,
                          const Parameters<float>&,
                          const optim::AdamState<float>&);
extern template void save(const std::filesystem::path&,
                          const Parameters<double>&,
                          const optim::AdamState<double>&);
extern template Parameters<float> load(const std::filesystem::path&, const Network<float>&);
extern template Parameters<double> load(const std::filesystem::path&, const Network<double>&);
extern template Parameters<bf16> load(const std::filesystem::path&, const Network<bf16>&);
extern template optim::SgdState<float> load_sgd_state(const std::filesystem::path&,
                                                      const Network<float>&);
extern template optim::SgdState<double> load_sgd_state(const std::filesystem::path&,
                                                       const Network<double>&);
extern template optim::AdamState<float> load_adam_state(const std::filesystem::path&,
                                                        const Network<float>&);
extern template optim::AdamState<double> load_adam_state(const std::filesystem::path&,
                                                         const Network<double>&);

extern template void save(const std::filesystem::path&,
                          const Parameters<float>&,
                          const std::vector<NamedParameter>&);
extern template void save(const std::filesystem::path&,
                          const Parameters<double>&,
                          const std::vector<NamedParameter>&);
extern template Parameters<float> load(const std::filesystem::path&,
                                       const Network<float>&,
                                       const std::vector<NamedParameter>&,
                                       NamedLoadOptions);
extern template Parameters<double> load(const std::filesystem::path&,
                                        const Network<double>&,
                                        const std::vector<NamedParameter>&,
                                        NamedLoadOptions);
extern template Parameters<bf16> load(const std::filesystem::path&,
                                      const Network<bf16>&,
                                      const std::vector<NamedParameter>&,
                                      NamedLoadOptions);

}  // namespace topos::checkpoint
