// What both renderings of a Plot (plot_svg.cpp, plot_text.cpp) read the same
// way: which points can be drawn, the values drawn along an axis, the axis's
// range and its round-number ticks (one rule for both), the notes that say what
// was not drawn, and the width of a label.
#pragma once

#include <topos/show/plot.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace topos::show::detail {

// Whether `value` can be placed on `axis`: finite, and positive on a log axis.
bool placeable(double value, Axis axis);

// Whether point `i` of `series` is drawn: its x and its y placeable.
bool drawable(const Series& series, std::size_t i, Axis x_axis, Axis y_axis);

// Every placeable value along one axis: the series' points (along y, only
// those whose x is placeable too), then the markers. Throws ShowError for a
// plot without a series.
std::vector<double> drawn_values(const Plot& plot, bool along_x, Axis x_axis, Axis y_axis);

// One axis: its drawn range in axis units (log10 of the value on a log axis),
// its ticks as values, and how a tick is written.
struct Scale {
    Axis axis = Axis::Linear;
    double low = 0;
    double high = 1;
    std::vector<double> ticks;
    int decimals = 0;     // digits after the point of a linear tick label
    bool powers = false;  // log ticks at 1, 2 or 5 times a power of ten

    // Where `value` lies from low (0) to high (1).
    double fraction(double value) const;

    std::string tick_label(double tick) const;
};

// The axis over [low, high] (values, positive on a log axis) with ticks at
// round numbers inside it, about `tick_target` intervals of it:
// linear, multiples of the step 1, 2 or 5 times a power of ten nearest the
// range over the target (Heckbert's nice numbers), at least two of them; log, powers of ten (every
// k-th decade when there are many), or 1, 2 and 5 times them when the range holds fewer than three
// powers of ten (a linear rule when even those are fewer than two). The range is the values' own,
// not widened to the ticks, so no room is lost; one value is widened to half its size either side
// (a decade on a log axis, 1 for a zero). Throws ShowError when the range does not fit in a double.
Scale round_scale(double low, double high, Axis axis, std::size_t tick_target);

// The scale of everything drawn along one axis; [0, 1] (or [1, 10] on a log
// axis) when nothing can be drawn there.
Scale scale_of(const Plot& plot, bool along_x, Axis x_axis, Axis y_axis, std::size_t tick_target);

// A run of consecutive points of one series whose y is NaN or infinite: where
// the line breaks, marked on the chart.
struct Gap {
    std::size_t first = 0;  // index of the run's first point
    std::size_t last = 0;   // and of its last
};

// The gaps of a series whose x lies on the x axis, in order.
std::vector<Gap> gaps(const Series& series, Axis x_axis);

// What a chart could not draw, one sentence per series or marker:
// "train: 3 points not finite (NaN at step 41, +inf at step 42, -inf at step
// 50)", "train: 2 values <= 0 not drawn on the log axis (0 at step 3, ...)",
// naming at most three places each. `x_name` is the x label ("" reads "x =").
// A note of points not finite is `marked`: its gaps carry a cross on the chart.
struct Note {
    std::string text;
    bool marked = false;
};

std::vector<Note> notes(const Plot& plot, Axis x_axis, Axis y_axis, const std::string& x_name);

// The cross that marks a gap, on the chart and before its note.
inline constexpr std::string_view gap_glyph = "\u00D7";

// `value` with `decimals` digits after the point, trailing zeros dropped, never "-0".
std::string fixed(double value, int decimals);

// `text` in at most `columns` code points, an ellipsis closing what was cut.
std::string fit(std::string_view text, std::size_t columns);

// The UTF-8 code points of `text`: its width in a terminal's columns, and what
// an SVG label's width is estimated from.
std::size_t code_points(std::string_view text);

}  // namespace topos::show::detail
