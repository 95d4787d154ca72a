// The loaders of <topos/model/checkpoint.hpp> over a whole file held in
// memory, privately: the same checks and messages, with `origin` naming the
// bytes. The fuzzer (fuzz/checkpoint_fuzz.cpp) drives the loaders through
// these, with no file system in between.
#pragma once

#include <topos/graph/network.hpp>
#include <topos/model/optim.hpp>
#include <topos/run/parameters.hpp>

#include <cstddef>
#include <span>
#include <string>

namespace topos::checkpoint {

template <Element T>
Parameters<T> load_from_bytes(std::span<const std::byte> bytes,
                              const Network<T>& network,
                              const std::string& origin);
template <Element T>
optim::SgdState<T> load_sgd_state_from_bytes(std::span<const std::byte> bytes,
                                             const Network<T>& network,
                                             const std::string& origin);
template <Element T>
optim::AdamState<T> load_adam_state_from_bytes(std::span<const std::byte> bytes,
                                               const Network<T>& network,
                                               const std::string& origin);

extern template Parameters<float> load_from_bytes(std::span<const std::byte>,
                                                  const Network<float>&,
                                                  const std::string&);
extern template Parameters<double> load_from_bytes(std::span<const std::byte>,
                                                   const Network<double>&,
                                                   const std::string&);
extern template optim::SgdState<float> load_sgd_state_from_bytes(std::span<const std::byte>,
                                                                 const Network<float>&,
                                                                 const std::string&);
extern template optim::SgdState<double> load_sgd_state_from_bytes(std::span<const std::byte>,
                                                                  const Network<double>&,
                                                                  const std::string&);
extern template optim::AdamState<float> load_adam_state_from_bytes(std::span<const std::byte>,
                                                                   const Network<float>&,
                                                                   const std::string&);
extern template optim::AdamState<double> load_adam_state_from_bytes(std::span<const std::byte>,
                                                                    const Network<double>&,
                                                                    const std::string&);

}  // namespace topos::checkpoint
