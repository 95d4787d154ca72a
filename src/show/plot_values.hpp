// What both renderings of a Plot (plot_svg.cpp, plot_text.cpp) read the same
// way: the values drawn along an axis, checked once, and the width of a label.
#pragma once

#include <topos/show/plot.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace topos::show::detail {

// Every value drawn along one axis: the series' points, then the markers.
// Throws ShowError for a plot without a series, and for a value a log axis
// cannot show, naming its series or marker.
std::vector<double> drawn_values(const Plot& plot, bool along_x, Axis axis);

// The UTF-8 code points of `text`: its width in a terminal's columns, and what
// an SVG label's width is estimated from.
std::size_t code_points(std::string_view text);

}  // namespace topos::show::detail
