// show::Plot: line and step charts of one or more series, on linear or log
// axes, with a title, axis labels, ticks at round numbers (1, 2 or 5 times a
// power of ten; powers of ten on a log axis), a legend and marked points.
// svg() writes a standalone SVG document; text(width, height) draws the same
// chart with Unicode braille characters for a terminal. A y that is NaN or
// infinite (a run that diverged) breaks the line, is marked with a cross, and
// is counted in a note under the legend ("3 points not finite (NaN at step 41
// to 43, +inf at step 50)"); so is a value <= 0 on a log axis, unmarked. Each
// axis spans the values it can draw.
//
//   show::Plot plot;
//   plot.title("loss").x_label("step").y_label("loss").y_axis(show::Axis::Log);
//   plot.line("train", losses);
//   std::cout << plot.text(72, 16);
#pragma once

#include <topos/plan/plan.hpp>
#include <topos/show/html.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace topos::show {

// How an axis maps values to positions.
enum class Axis : std::uint8_t {
    Linear,
    Log,  // base 10; a value <= 0 is left out of the chart, and a note says so
};

// How a series joins its points: straight lines, or steps that hold each value
// until the next x (as a live-volume curve does between scheduled nodes).
enum class Stroke : std::uint8_t {
    Line,
    Steps,
};

// One curve of a plot: its label, its points and how they are joined.
struct Series {
    std::string label;
    std::vector<double> x;  // as many as y, finite, increasing
    std::vector<double> y;  // NaN or infinite where the curve has no value
    Stroke stroke = Stroke::Line;
};

// A point drawn as a dot with a label beside it (a peak, a best epoch).
struct Marker {
    double x = 0;
    double y = 0;
    std::string label;
};

class Plot {
public:
    // The chart's title, axis labels and scales; each returns the plot.
    Plot& title(std::string text);
    Plot& x_label(std::string text);
    Plot& y_label(std::string text);
    Plot& x_axis(Axis axis);
    Plot& y_axis(Axis axis);

    // A series at x = 0, 1, 2, ...; throws ShowError for no point. A y that is
    // NaN or infinite is kept: the line breaks there and a note counts it.
    Plot& line(std::string label, std::vector<double> y);
    // A series at the given x; throws ShowError unless x and y have one size and
    // x is finite and increases.
    Plot& line(std::string label, std::vector<double> x, std::vector<double> y);
    // The same, drawn as steps.
    Plot& steps(std::string label, std::vector<double> y);
    Plot& steps(std::string label, std::vector<double> x, std::vector<double> y);

    // A labelled point; throws ShowError unless it is finite. One that a log
    // axis cannot show is left out, and a note says so.
    Plot& mark(double x, double y, std::string label);

    // The series, in the order added.
    const std::vector<Series>& series() const { return series_; }

    // The markers, in the order added.
    const std::vector<Marker>& markers() const { return markers_; }

    // A standalone SVG document of `width` by `height` pixels. Throws ShowError
    // for a plot without a series, or a size under 160 by 120. A series with no
    // value to draw leaves an empty frame, its note in the legend.
    std::string svg(std::size_t width = 640, std::size_t height = 360) const;

    // The SVG inline in an HTML fragment.
    Html html(std::size_t width = 640, std::size_t height = 360) const;

    // The chart in `width` columns and `height` lines of text (axes, tick
    // labels and legend included), each series in braille dots. Throws
    // ShowError for a size under 20 by 5.
    std::string text(std::size_t width = 72, std::size_t height = 16) const;

private:
    std::string title_;
    std::string x_label_;
    std::string y_label_;
    Axis x_axis_ = Axis::Linear;
    Axis y_axis_ = Axis::Linear;
    std::vector<Series> series_;
    std::vector<Marker> markers_;
};

// One plan's live volume (Plan::live_series) along its schedule, as steps,
// its peak marked: x is the scheduled position, y the elements alive.
template <Element T>
Plot live_volume(const Plan<T>& plan);

// A plan with its label, for the comparison below.
template <ComputeElement T>
struct Labelled {
    std::string label;
    const Plan<T>& plan;
};

// Several plans' live volumes on one chart, each with its peak marked:
// show::live_volume({{"training", training}, {"inference", inference}}).
Plot live_volume(std::initializer_list<Labelled<float>> plans);
Plot live_volume(std::initializer_list<Labelled<double>> plans);

extern template Plot live_volume(const Plan<float>&);
extern template Plot live_volume(const Plan<double>&);
extern template Plot live_volume(const Plan<bf16>&);

}  // namespace topos::show
