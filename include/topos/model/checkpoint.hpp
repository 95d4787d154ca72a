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
#pragma once

#include <topos/graph/network.hpp>
#include <topos/model/optim.hpp>
#include <topos/run/parameters.hpp>

#include <filesystem>
#include <string>

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

}  // namespace topos::checkpoint
