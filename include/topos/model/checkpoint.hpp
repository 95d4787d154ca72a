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

#include <filesystem>
#include <string>
#include <vector>

namespace topos::checkpoint {

// "parameter.<node index>": the name a parameter is saved under.
std::string tensor_name(Symbol parameter);

// Writes `parameters` (and an optimizer's state) to `path`, replacing it
// atomically: written beside it, synced, renamed over it, its folder synced.
// A failed save leaves the previous file as it was, and a concurrent load sees
// the previous file or the new one. Throws CheckpointError naming the call
// that failed and why.
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
// CheckpointError for a path that is not a regular file and for a malformed
// file (checked before its payload is read), naming every tensor that does
// not match and why.
template <Element T>
Parameters<T> load(const std::filesystem::path& path, const Network<T>& network);

// An optimizer state saved with the parameters, checked the same way; throws
// CheckpointError when the file holds no state of that optimizer.
template <Element T>
optim::SgdState<T> load_sgd_state(const std::filesystem::path& path, const Network<T>& network);
template <Element T>
optim::AdamState<T> load_adam_state(const std::filesystem::path& path, const Network<T>& network);

// Writes every parameter under its name in `names`, which must name each
// parameter of `parameters` once (CheckpointError names one that is not).
template <Element T>
void save(const std::filesystem::path& path,
          const Parameters<T>& parameters,
          const std::vector<NamedParameter>& names);

// The options of loading by name.
struct NamedLoadOptions {
    // Refuse tensors the names do not mention, as torch's load_state_dict(strict=True)
    // does; off, they are ignored (a BatchNorm's running statistics, say).
    bool strict = true;
};

// The parameters of `network` read by name: every name must be in the file with
// the network's element type and the parameter's shape (transposed where
// PyTorch holds the transpose); a parameter `names` does not mention keeps the
// network's value. Throws CheckpointError naming every tensor that does not
// match and why.
template <Element T>
Parameters<T> load(const std::filesystem::path& path,
                   const Network<T>& network,
                   const std::vector<NamedParameter>& names,
                   NamedLoadOptions options = {});

extern template void save(const std::filesystem::path&, const Parameters<float>&);
extern template void save(const std::filesystem::path&, const Parameters<double>&);
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

}  // namespace topos::checkpoint
