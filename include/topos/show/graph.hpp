// show::graph: a picture of a tape, a network or a plan, read from their public
// API. One box per node, labelled with its index, opcode and shape, a scalar
// leaf's value ("7 Leaf [] = 50"), and a parameter's name when options.names
// gives it ("0.weight"):
//
// - parameters, inputs (with indices) and leaves are drawn as distinct shapes
//   (classes `parameter`, `input`, `leaf`); other nodes are boxes (`op`);
// - derived nodes, those recorded by differentiation, are shaded (`derived`);
// - nodes a plan does not schedule are faded (`unscheduled`);
// - a plan's declared values (roots and observed) are drawn with a double
//   border (`declared`), and options.marked nodes with a thick one (`marked`);
// - nodes recorded in a name scope (a module's express opens one named for its
//   kind) are drawn in a cluster labelled with the scope's name, after the
//   name its parameters share when options.names gives them ("0: Linear");
//   clusters nest as the scopes were opened, and a parameter sits in the
//   cluster that holds all its readers;
// - a plan's elected patterns are clusters labelled with their kind, or one
//   box each when collapsed;
// - edges run from operand to reader, labelled with the operand's position
//   when a node has several.
//
// Each DOT node carries `class="..."` with the words above, and each cluster
// `class="scope"` or `class="pattern"`, so the SVG Graphviz writes carries them
// too, and a test or a style sheet can find them.
#pragma once

#include <topos/autodiff/adjoints.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/named.hpp>
#include <topos/plan/plan.hpp>
#include <topos/show/picture.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace topos::show {

// What a picture shows beyond the graph itself, and how it is laid out.
struct GraphOptions {
    std::string title{};           // drawn above the graph; none when empty
    std::vector<Symbol> marked{};  // drawn with a thick border
    // The first node recorded by differentiation: it and every later node are
    // shaded. Unset: nothing is, unless the graph is given an Adjoints.
    std::optional<std::uint32_t> derived_from{};
    bool collapse_patterns = false;  // a plan's patterns as one box each
    bool left_to_right = false;      // rank direction: top to bottom unless set
    // Parameter names, as a model's named_parameters() gives them: each names
    // its box and, by the words the names share, its module's cluster. Drawing
    // throws ShowError for a name whose symbol is not a parameter of the graph.
    std::vector<NamedParameter> names{};
    bool group_scopes = true;  // name scopes as clusters; unset: every box at the top level
};

// A tape's nodes as recorded so far.
template <Element T>
Picture graph(const Tape<T>& tape, const GraphOptions& options = {});

// A sealed network's nodes.
template <Element T>
Picture graph(const Network<T>& network, const GraphOptions& options = {});

// A network whose derivative was recorded: the nodes differentiation appended
// (after the target) are shaded.
template <Element T>
Picture graph(const Network<T>& network, const Adjoints<T>& adjoints, GraphOptions options = {});

// A plan over its network: unscheduled nodes faded, declared values marked,
// elected patterns as clusters.
template <Element T>
Picture graph(const Plan<T>& plan, const GraphOptions& options = {});

extern template Picture graph(const Tape<float>&, const GraphOptions&);
extern template Picture graph(const Tape<double>&, const GraphOptions&);
extern template Picture graph(const Tape<bf16>&, const GraphOptions&);
extern template Picture graph(const Network<float>&, const GraphOptions&);
extern template Picture graph(const Network<double>&, const GraphOptions&);
extern template Picture graph(const Network<bf16>&, const GraphOptions&);
extern template Picture graph(const Network<float>&, const Adjoints<float>&, GraphOptions);
extern template Picture graph(const Network<double>&, const Adjoints<double>&, GraphOptions);
extern template Picture graph(const Network<bf16>&, const Adjoints<bf16>&, GraphOptions);
extern template Picture graph(const Plan<float>&, const GraphOptions&);
extern template Picture graph(const Plan<double>&, const GraphOptions&);
extern template Picture graph(const Plan<bf16>&, const GraphOptions&);

}  // namespace topos::show
