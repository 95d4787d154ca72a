// The interpreter: the reference evaluation every faster path is checked
// against. It runs each node's reference kernel in node order.
#pragma once

#include "graph/spec.hpp"
#include "ops/op_info.hpp"
#include <topos/run/run.hpp>

#include <span>
#include <vector>

namespace topos::detail {

// One computed node from its operands' values.
template <Element T>
Tensor<T> evaluate_node(const Node& node, std::span<const Tensor<T>* const> operands);

// Throws FeedError unless `feed` names an input of `spec` with the input's shape.
template <Element T>
void check_feed(const Spec<T>& spec, const Feed<T>& feed);

// The value of every source: parameters from `parameters`, inputs from `feeds`
// or their recorded defaults, leaves from their payloads. Checks the feeds and
// that the parameters belong to this spec.
template <Element T>
std::vector<const Tensor<T>*> source_values(const Spec<T>& spec,
                                            const ParameterLayout& layout,
                                            const Parameters<T>& parameters,
                                            std::span<const Feed<T>> feeds);

// Evaluates the nodes marked in `scheduled` (all when it is empty), in order.
template <Element T>
std::vector<Tensor<T>> interpret(const Spec<T>& spec,
                                 const ParameterLayout& layout,
                                 const Parameters<T>& parameters,
                                 std::span<const Feed<T>> feeds,
                                 const std::vector<bool>& scheduled);

}  // namespace topos::detail
