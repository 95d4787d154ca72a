// show::Picture: a graph drawn as Graphviz DOT text, and as SVG where topos
// was built with Graphviz's library (Debian: libgraphviz-dev; CMake option
// TOPOS_GRAPHVIZ, on where found). show::graph makes them.
#pragma once

#include <topos/show/html.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace topos::show {

// svg() of a build without Graphviz's library; dot() still works.
class GraphvizUnavailable : public ShowError {
public:
    using ShowError::ShowError;
};

class Picture {
public:
    // A picture of DOT text `dot` that draws `nodes` boxes.
    Picture(std::string dot, std::size_t nodes) : dot_(std::move(dot)), nodes_(nodes) {}

    // The Graphviz DOT text: always available, for `dot -Tsvg` or any viewer.
    const std::string& dot() const { return dot_; }

    // The picture laid out by Graphviz's `dot` layout as a standalone SVG
    // document. Throws GraphvizUnavailable, saying how to get it, in a build
    // without Graphviz's library.
    std::string svg() const;

    // The SVG inline in HTML where Graphviz is there, else the DOT text in a
    // <pre> block with a line saying why.
    Html html() const;

    // The number of boxes drawn (a collapsed pattern counts as one).
    std::size_t nodes() const { return nodes_; }

    // Whether svg() can lay out pictures in this build.
    static bool can_lay_out();

private:
    std::string dot_;
    std::size_t nodes_;
};

}  // namespace topos::show
