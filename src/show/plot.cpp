// The Plot builder (series checked as they are added) and show::live_volume,
// a plan's live_series() as a step chart with its peak marked.
#include "core/float_text.hpp"
#include "show/plot_values.hpp"
#include <topos/show/plot.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace topos::show {
namespace {

std::string quoted(const std::string& label) {
    return "plot series \"" + label + "\": ";
}

void check_finite(const std::string& label, const std::vector<double>& values, const char* axis) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i])) {
            throw ShowError(quoted(label) + axis + "[" + std::to_string(i) + "] is " +
                            std::to_string(values[i]) + "; every value must be finite");
        }
    }
}

void check_increasing(const std::string& label, const std::vector<double>& x) {
    for (std::size_t i = 1; i < x.size(); ++i) {
        if (!(x[i] > x[i - 1])) {
            throw ShowError(quoted(label) + "x must increase, but x[" + std::to_string(i) +
                            "] = " + std::to_string(x[i]) + " follows x[" + std::to_string(i - 1) +
                            "] = " + std::to_string(x[i - 1]));
        }
    }
}

void check_series(const std::string& label,
                  const std::vector<double>& x,
                  const std::vector<double>& y) {
    if (y.empty()) {
        throw ShowError(quoted(label) + "no point to draw");
    }
    if (x.size() != y.size()) {
        throw ShowError(quoted(label) + "x has " + std::to_string(x.size()) + " values and y " +
                        std::to_string(y.size()) + "; give one x per y");
    }
    check_finite(label, x, "x");
    check_finite(label, y, "y");
    check_increasing(label, x);
}

// 0, 1, 2, ... as many as `count`.
std::vector<double> positions(std::size_t count) {
    std::vector<double> x(count);
    for (std::size_t i = 0; i < count; ++i) {
        x[i] = static_cast<double>(i);
    }
    return x;
}

// The first scheduled position with the most elements alive, and its node.
struct Peak {
    std::size_t elements = 0;
    std::size_t position = 0;
    std::uint32_t node = 0;
};

template <Element T>
Peak peak_of(const Plan<T>& plan) {
    const std::vector<std::size_t>& series = plan.live_series();
    if (series.empty()) {
        throw ShowError("live volume: the plan schedules no node, so there is nothing to draw");
    }
    const auto highest = std::max_element(series.begin(), series.end());
    const auto position = static_cast<std::size_t>(highest - series.begin());
    return Peak{*highest, position, plan.nodes()[position].index()};
}

std::string describe_peak(const Peak& peak) {
    return "peak " + std::to_string(peak.elements) + " at node " + std::to_string(peak.node);
}

template <Element T>
std::vector<double> live_values(const Plan<T>& plan) {
    const std::vector<std::size_t>& series = plan.live_series();
    return {series.begin(), series.end()};
}

Plot live_volume_axes() {
    Plot plot;
    plot.title("live volume").x_label("scheduled position").y_label("elements alive");
    return plot;
}

// The plan's curve as steps labelled `label`, and its peak marked with
// `marker_prefix` before "peak P at node K".
template <Element T>
void add_live_volume(Plot& plot,
                     const std::string& label,
                     const std::string& marker_prefix,
                     const Plan<T>& plan) {
    const Peak peak = peak_of(plan);
    plot.steps(label, live_values(plan));
    plot.mark(static_cast<double>(peak.position),
              static_cast<double>(peak.elements),
              marker_prefix + describe_peak(peak));
}

template <Element T>
Plot compare_live_volumes(std::initializer_list<Labelled<T>> plans) {
    if (plans.size() == 0) {
        throw ShowError("live volume: no plan to compare; give at least one {label, plan}");
    }
    Plot plot = live_volume_axes();
    for (const Labelled<T>& labelled : plans) {
        add_live_volume(plot, labelled.label, labelled.label + " ", labelled.plan);
    }
    return plot;
}

}  // namespace

namespace detail {
namespace {

void require_positive(double value, const char* kind, const std::string& label, bool along_x) {
    if (value > 0) {
        return;
    }
    std::array<char, 64> buffer{};
    const auto written = topos::detail::to_chars(
        buffer.data(), buffer.data() + buffer.size(), value + 0.0, std::chars_format::general, 6);
    throw ShowError("plot: " + std::string(kind) + " \"" + label + "\" has " +
                    (along_x ? "x" : "y") + " = " + std::string(buffer.data(), written.ptr) +
                    " on a log axis; every value on a log axis must be positive");
}

}  // namespace

std::vector<double> drawn_values(const Plot& plot, bool along_x, Axis axis) {
    if (plot.series().empty()) {
        throw ShowError("plot: no series to draw; add one with line() or steps()");
    }
    std::vector<double> values;
    for (const Series& series : plot.series()) {
        for (const double value : along_x ? series.x : series.y) {
            if (axis == Axis::Log) {
                require_positive(value, "series", series.label, along_x);
            }
            values.push_back(value);
        }
    }
    for (const Marker& marker : plot.markers()) {
        const double value = along_x ? marker.x : marker.y;
        if (axis == Axis::Log) {
            require_positive(value, "marker", marker.label, along_x);
        }
        values.push_back(value);
    }
    return values;
}

std::size_t code_points(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

}  // namespace detail

Plot& Plot::title(std::string text) {
    title_ = std::move(text);
    return *this;
}

Plot& Plot::x_label(std::string text) {
    x_label_ = std::move(text);
    return *this;
}

Plot& Plot::y_label(std::string text) {
    y_label_ = std::move(text);
    return *this;
}

Plot& Plot::x_axis(Axis axis) {
    x_axis_ = axis;
    return *this;
}

Plot& Plot::y_axis(Axis axis) {
    y_axis_ = axis;
    return *this;
}

Plot& Plot::line(std::string label, std::vector<double> y) {
    std::vector<double> x = positions(y.size());
    return line(std::move(label), std::move(x), std::move(y));
}

Plot& Plot::line(std::string label, std::vector<double> x, std::vector<double> y) {
    check_series(label, x, y);
    series_.push_back(Series{std::move(label), std::move(x), std::move(y), Stroke::Line});
    return *this;
}

Plot& Plot::steps(std::string label, std::vector<double> y) {
    std::vector<double> x = positions(y.size());
    return steps(std::move(label), std::move(x), std::move(y));
}

Plot& Plot::steps(std::string label, std::vector<double> x, std::vector<double> y) {
    check_series(label, x, y);
    series_.push_back(Series{std::move(label), std::move(x), std::move(y), Stroke::Steps});
    return *this;
}

Plot& Plot::mark(double x, double y, std::string label) {
    if (!std::isfinite(x) || !std::isfinite(y)) {
        throw ShowError("plot marker \"" + label + "\": at (" + std::to_string(x) + ", " +
                        std::to_string(y) + "); a marker must lie at a finite point");
    }
    markers_.push_back(Marker{x, y, std::move(label)});
    return *this;
}

template <Element T>
Plot live_volume(const Plan<T>& plan) {
    Plot plot = live_volume_axes();
    add_live_volume(plot, "live volume", "", plan);
    return plot;
}

Plot live_volume(std::initializer_list<Labelled<float>> plans) {
    return compare_live_volumes(plans);
}

Plot live_volume(std::initializer_list<Labelled<double>> plans) {
    return compare_live_volumes(plans);
}

template Plot live_volume(const Plan<float>&);
template Plot live_volume(const Plan<double>&);

}  // namespace topos::show
