// The pattern catalog: the table of pattern rows (row.hpp), one per line of
// <topos/pattern/patterns.def>, and what the compiler and the emitter ask of
// it: the matches at the scheduled roots, a match's fused kernel, and whether
// and how an elected match raises to a named StableHLO operation.
#pragma once

#include "pattern/row.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace topos::detail {

#define TOPOS_PATTERN(enumerator, row) PatternRow row##_row();
#include <topos/pattern/patterns.def>

// The row of one pattern kind. The first call assembles the table and checks
// every row (check_pattern_row).
const PatternRow& pattern_row(PatternKind kind);

// Throws Error unless `row` is a complete row for `expected`, naming the
// pattern and the piece it lacks.
void check_pattern_row(const PatternRow& row, PatternKind expected);

// Every match of the catalog rooted at a scheduled node, in root order: at
// each root, the first row (in list order) whose structure is there.
std::vector<Match> find_matches(const std::vector<Node>& nodes, const std::vector<bool>& scheduled);

// Runs the match's fused kernel (see FusedKernel).
template <Element T>
void run_match(const Match& match, std::span<const T* const> inputs, std::span<T* const> results);

// Whether an election of the match is written as one named StableHLO
// operation, and the match's inputs that operation reads.
bool raises(const Match& match, const RaiseContext& context);
std::vector<std::uint32_t> raised_operands(const Match& match);

// Emits the named operation at the match's root; the values of its results.
std::vector<HloValue> raise(HloBuilder& build, const Match& match, const RaiseContext& context);

}  // namespace topos::detail
