// The pattern catalog: each structure has a matcher (over the frozen spec) and
// a fused kernel that returns the interpreter's bits for every value it writes.
#pragma once

#include "pattern/structure.hpp"
#include <topos/core/tensor.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace topos::detail {

// Every match of the catalog rooted at a scheduled node, in root order.
std::vector<Match> find_matches(const std::vector<Node>& nodes, const std::vector<bool>& scheduled);

// Map regions among the scheduled nodes that no elected match covers: each
// grows back from a root through same-shaped elementwise operands whose every
// reader is in the region and which are neither declared nor retained. Only
// regions of two or more members with at least `map_min_elements` elements
// each are offered: below that, one loop saves nothing.
inline constexpr std::size_t map_min_elements = 1024;
std::vector<Match> map_regions(const std::vector<Node>& nodes,
                               const std::vector<std::uint32_t>& order,
                               const std::vector<bool>& declared,
                               const std::vector<bool>& retained,
                               const std::vector<bool>& covered);

// Runs a match's fused kernel: `inputs` in the match's input order; `results`
// in its result order, null where a result is not written.
template <Element T>
void run_match(const Match& match, std::span<const T* const> inputs, std::span<T* const> results);

// The rows of the catalog.
std::optional<Match> match_window_product(const SpecView& spec, std::uint32_t root);
std::optional<Match> match_reduce_window(const SpecView& spec, std::uint32_t root);
std::optional<Match> match_batch_norm(const SpecView& spec, std::uint32_t root);

template <Element T>
void window_product_kernel(const WindowProductGeometry& geometry,
                           std::span<const T* const> inputs,
                           T* out);

// A convolution's filter gradient (the transposed window product) runs on the
// exact GEMM over the materialised windows matrix when that holds at most this
// many elements (2^22 by default), else as rank-one updates; both give the
// same bits. Returns the previous value; tests set 0 to cover the updates.
std::size_t set_largest_windows_matrix(std::size_t elements);
template <Element T>
void reduce_window_kernel(const ReduceWindowGeometry& geometry,
                          std::span<const T* const> inputs,
                          T* out);
template <Element T>
void map_kernel(const MapGeometry& geometry, std::span<const T* const> inputs, T* out);
template <Element T>
void batch_norm_kernel(const BatchNormGeometry& geometry,
                       std::span<const T* const> inputs,
                       std::span<T* const> results);

}  // namespace topos::detail
