// A match of the pattern catalog: which nodes a structure covers, what its
// fused kernel reads and writes, and the geometry the kernel needs. Matches
// are found over the frozen spec; a plan's election decides which it uses.
#pragma once

#include <topos/graph/node.hpp>
#include <topos/pattern/pattern.hpp>

#include <any>
#include <cstdint>
#include <vector>

namespace topos::detail {

struct Match {
    PatternKind kind;
    std::uint32_t root;
    std::vector<std::uint32_t> nodes;    // covered, ascending, root included
    std::vector<std::uint32_t> results;  // root first, then named results it may write back
    std::vector<std::uint32_t> inputs;   // values outside the match the kernel reads
    // The geometry of the pattern's kernel, of the type its row's file declares.
    std::any geometry;

    template <class Geometry>
    const Geometry& geometry_as() const {
        return std::any_cast<const Geometry&>(geometry);
    }

    // The geometry, when it is a `Geometry`; null otherwise. A backend serves
    // the matches whose geometry it knows how to run.
    template <class Geometry>
    const Geometry* geometry_if() const {
        return std::any_cast<Geometry>(&geometry);
    }
};

// What a plan elected: a match and which of its results it materialises.
struct Election {
    Match match;
    std::vector<bool> writes;  // by result: whether the kernel writes it
};

}  // namespace topos::detail
