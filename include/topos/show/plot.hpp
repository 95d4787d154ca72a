// show::Plot: line and step charts of one or more series, on linear or log
// axes, with a title, axis labels, ticks at round numbers, a legend and marked
// points. svg() writes a standalone SVG document; text(width, height) draws the
// same chart with Unicode braille characters for a terminal.
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
    Log,  // base 10; every value drawn on it must be positive (ShowError)
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
    std::vector<double> x;  // as many as y, increasing
    std::vector<double> y;
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

    // A series at x = 0, 1, 2, ...; throws ShowError for no point or a non-finite one.
    Plot& line(std::string label, std::vector<double> y);
    // A series at the given x; throws ShowError unless x and y have one size and x increases.
    Plot& line(std::string label, std::vector<double> x, std::vector<double> y);
    // The same, drawn as steps.
    Plot& steps(std::string label, std::vector<double> y);
    Plot& steps(std::string label, std::vector<double> x, std::vector<double> y);

    // A labelled point.
    Plot& mark(double x, double y, std::string label);

    // The series, in the order added.
    const std::vector<Series>& series() const { return series_; }

    // The markers, in the order added.
    const std::vector<Marker>& markers() const { return markers_; }

    // A standalone SVG document of `width` by `height` pixels. Throws ShowError
    // for a plot without a series, or a size under 160 by 120.
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
template <Element T>
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

}  // namespace topos::show
