// Pattern: one election of a plan. The catalog matches structures over the
// frozen spec (a windowed product, a window reduction, the two batch-norm
// formulas); a plan elects the matches it can use and serves each with one
// fused kernel. A match never rewrites the spec: an unelected region runs its
// original operations.
#pragma once

#include <topos/graph/symbol.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos {

// The structures the catalog knows: the lines of <topos/pattern/patterns.def>.
// Map regions are grown rather than matched: elementwise operations whose
// intermediates nobody else reads.
enum class PatternKind : std::uint8_t {
#define TOPOS_PATTERN(enumerator, row) enumerator,
#include <topos/pattern/patterns.def>
};

namespace detail {
// The enumerators' names, in list order.
inline constexpr std::string_view pattern_names[] = {
#define TOPOS_PATTERN(enumerator, row) #enumerator,
#include <topos/pattern/patterns.def>
};
}  // namespace detail

inline constexpr std::size_t pattern_kind_count = std::size(detail::pattern_names);

// Who computes an elected pattern: the fused kernel of the pattern's kind, so
// the formula is the kind (`Formula::WindowProduct` names both).
using Formula = PatternKind;

// "WindowProduct".
std::string_view name_of(PatternKind kind);
std::ostream& operator<<(std::ostream& out, PatternKind kind);

class Pattern {
public:
    Pattern(PatternKind kind, Symbol root, std::vector<Symbol> nodes, std::vector<Symbol> results)
        : kind_(kind), root_(root), nodes_(std::move(nodes)), results_(std::move(results)) {}

    PatternKind kind() const { return kind_; }

    // The node whose value the fused kernel produces last; it stands for the group.
    Symbol root() const { return root_; }

    // Every node the pattern covers, root included, in node order.
    std::span<const Symbol> nodes() const { return nodes_; }

    // The covered values the kernel writes: the root, then any named result
    // (batch norm's mean and variance) that is declared or read outside.
    std::span<const Symbol> results() const { return results_; }

    // The fused kernel that serves it: the one of its kind.
    Formula formula() const { return kind_; }

    // `WindowProduct rooted at node 9, covering 5 nodes, served as WindowProduct`
    std::string describe() const;

private:
    PatternKind kind_;
    Symbol root_;
    std::vector<Symbol> nodes_;
    std::vector<Symbol> results_;
};

std::ostream& operator<<(std::ostream& out, const Pattern& pattern);

}  // namespace topos
