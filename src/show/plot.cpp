// The Plot builder (series checked as they are added), what both renderings
// share (plot_values.hpp: drawable points, round-number ticks, notes of what
// was not drawn), and show::live_volume, a plan's live_series() as a step
// chart with its peak marked.
#include "core/float_text.hpp"
#include "show/plot_values.hpp"
#include <topos/show/plot.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
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
                            std::to_string(values[i]) + "; every x must be finite");
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

template <ComputeElement T>
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

// Six significant digits.
std::string general(double value) {
    std::array<char, 64> buffer{};
    const auto [end, error] = topos::detail::to_chars(
        buffer.data(), buffer.data() + buffer.size(), value + 0.0, std::chars_format::general, 6);
    return {buffer.data(), error == std::errc() ? end : buffer.data()};
}

// The power of ten at or below `value` (positive).
double decade_of(double value) {
    return std::pow(10.0, std::floor(std::log10(value) + 1e-9));
}

// The round step (1, 2 or 5 times a power of ten) nearest at or above `raw`.
double round_step(double raw) {
    const double power = decade_of(raw);
    for (const double multiple : {1.0, 2.0, 5.0}) {
        if (raw <= multiple * power * (1 + 1e-9)) {
            return multiple * power;
        }
    }
    return 10 * power;
}

// The round step below `step`: 5 -> 2 -> 1 -> 0.5.
double smaller_step(double step) {
    const double power = decade_of(step);
    const double mantissa = std::round(step / power);
    return mantissa >= 5 ? 2 * power : (mantissa >= 2 ? power : power / 2);
}

// At most this many ticks are ever listed along one axis.
constexpr double most_ticks = 1000;

// The multiples of `step` in [low, high].
std::vector<double> multiples_inside(double low, double high, double step) {
    const double first = std::ceil(low / step - 1e-9);
    const double last = std::floor(high / step + 1e-9);
    std::vector<double> ticks;
    if (!(last - first < most_ticks)) {
        return ticks;
    }
    const auto count = static_cast<long>(last - first);
    for (long k = 0; k <= count; ++k) {
        ticks.push_back((first + static_cast<double>(k)) * step);
    }
    return ticks;
}

// The round step nearest `raw`, as Heckbert's "nice numbers" round it: 1 below
// 1.5, 2 below 3, 5 below 7 (times the power of ten), else 10.
double nearest_round_step(double raw) {
    const double power = decade_of(raw);
    const double mantissa = raw / power;
    return power * (mantissa < 1.5 ? 1 : (mantissa < 3 ? 2 : (mantissa < 7 ? 5 : 10)));
}

// Linear ticks: the round step nearest the range over `target`, made finer
// until at least two multiples of it lie in the range.
std::vector<double> linear_ticks(double low, double high, std::size_t target, double& step) {
    step = nearest_round_step((high - low) / static_cast<double>(std::max<std::size_t>(target, 1)));
    std::vector<double> ticks = multiples_inside(low, high, step);
    for (int finer = 0; ticks.size() < 2 && finer < 64; ++finer) {
        step = smaller_step(step);
        ticks = multiples_inside(low, high, step);
    }
    if (ticks.size() < 2) {
        step = high - low;
        ticks = {low, high};
    }
    return ticks;
}

// Log ticks over [lo, hi] (log10 units): 1, 2 and 5 times the powers of ten
// when fewer than three powers lie inside and as many fit the target; else
// every `stride`-th power of ten, `stride` itself a round number of decades;
// empty when fewer than two would show.
std::vector<double> log_ticks(double lo, double hi, std::size_t target) {
    const auto fits = [&](double value) {
        const double unit = std::log10(value);
        return unit >= lo - 1e-9 && unit <= hi + 1e-9;
    };
    std::vector<double> fine;
    for (double exponent = std::floor(lo); exponent <= std::ceil(hi); ++exponent) {
        for (const double multiple : {1.0, 2.0, 5.0}) {
            const double value = multiple * std::pow(10.0, exponent);
            if (fits(value)) {
                fine.push_back(value);
            }
        }
    }
    const double first = std::ceil(lo - 1e-9);
    const double last = std::floor(hi + 1e-9);
    if (fine.size() >= 2 && fine.size() <= target + 1 && last - first < 2) {
        return fine;
    }
    if (last > first) {
        double stride = std::max(
            1.0,
            round_step((last - first) / static_cast<double>(std::max<std::size_t>(target, 1))));
        std::vector<double> powers;
        while (powers.size() < 2) {
            powers.clear();
            for (double e = std::ceil(first / stride - 1e-9) * stride; e <= last; e += stride) {
                powers.push_back(std::pow(10.0, e));
            }
            stride = std::max(1.0, smaller_step(stride));
        }
        return powers;
    }
    return fine.size() >= 2 ? fine : std::vector<double>{};
}

const char* nonfinite_name(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    return value > 0 ? "+inf" : "-inf";
}

std::string place(const std::string& x_name, double x) {
    return x_name.empty() ? "x = " + general(x) : x_name + " " + general(x);
}

// "<count> <what>s <verb> (first, second, third, ...)".
std::string counted(std::size_t count,
                    const char* what,
                    const std::string& verb,
                    const std::vector<std::string>& places) {
    std::string text = std::to_string(count) + " " + what + (count == 1 ? "" : "s") + " " + verb;
    text += " (";
    for (std::size_t i = 0; i < places.size() && i < 3; ++i) {
        text += (i == 0 ? "" : ", ") + places[i];
    }
    return text + (places.size() > 3 ? ", ...)" : ")");
}

}  // namespace

// `value` with `decimals` digits after the point, trailing zeros dropped, never "-0".
std::string fixed(double value, int decimals) {
    std::array<char, 400> buffer{};
    const auto [end, error] = topos::detail::to_chars(
        buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed, decimals);
    std::string text(buffer.data(), error == std::errc() ? end : buffer.data());
    if (text.find('.') != std::string::npos) {
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') {
            text.pop_back();
        }
    }
    return text == "-0" ? "0" : text;
}

bool placeable(double value, Axis axis) {
    return std::isfinite(value) && (axis != Axis::Log || value > 0);
}

bool drawable(const Series& series, std::size_t i, Axis x_axis, Axis y_axis) {
    return placeable(series.x[i], x_axis) && placeable(series.y[i], y_axis);
}

std::vector<double> drawn_values(const Plot& plot, bool along_x, Axis x_axis, Axis y_axis) {
    if (plot.series().empty()) {
        throw ShowError("plot: no series to draw; add one with line() or steps()");
    }
    std::vector<double> values;
    for (const Series& series : plot.series()) {
        for (std::size_t i = 0; i < series.x.size(); ++i) {
            if (!placeable(series.x[i], x_axis)) {
                continue;
            }
            if (along_x) {
                values.push_back(series.x[i]);
            } else if (placeable(series.y[i], y_axis)) {
                values.push_back(series.y[i]);
            }
        }
    }
    for (const Marker& marker : plot.markers()) {
        if (placeable(marker.x, x_axis) && placeable(marker.y, y_axis)) {
            values.push_back(along_x ? marker.x : marker.y);
        }
    }
    return values;
}

double Scale::fraction(double value) const {
    const double unit = axis == Axis::Log ? std::log10(value) : value;
    return (unit - low) / (high - low);
}

std::string Scale::tick_label(double tick) const {
    if (powers) {
        const double power = decade_of(tick);
        const int exponent = static_cast<int>(std::lround(std::log10(power)));
        if (exponent < -4 || exponent > 6) {
            return std::to_string(std::lround(tick / power)) + "e" + std::to_string(exponent);
        }
        return fixed(tick, std::max(0, -exponent));
    }
    const double to = axis == Axis::Log ? std::pow(10.0, high) : high;
    const double from = axis == Axis::Log ? std::pow(10.0, low) : low;
    if (std::max(std::fabs(from), std::fabs(to)) >= 1e7 || decimals > 6) {
        return general(tick);
    }
    return fixed(tick, decimals);
}

Scale round_scale(double low, double high, Axis axis, std::size_t tick_target) {
    Scale scale;
    scale.axis = axis;
    double step = 1;
    if (axis == Axis::Log) {
        scale.low = std::log10(low);
        scale.high = std::log10(high);
        if (scale.low == scale.high) {
            scale.low -= 0.5;
            scale.high += 0.5;
        }
        scale.ticks = log_ticks(scale.low, scale.high, tick_target);
        scale.powers = !scale.ticks.empty();
        if (scale.powers) {
            return scale;
        }
        scale.ticks =
            linear_ticks(std::pow(10.0, scale.low), std::pow(10.0, scale.high), tick_target, step);
    } else {
        if (low == high) {
            const double pad = low == 0 ? 1.0 : std::fabs(low) / 2;
            low -= pad;
            high += pad;
        }
        if (!std::isfinite(high - low)) {
            throw ShowError("plot: the values span more than a double can hold; nothing to draw");
        }
        scale.low = low;
        scale.high = high;
        scale.ticks = linear_ticks(low, high, tick_target, step);
    }
    scale.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    return scale;
}

Scale scale_of(const Plot& plot, bool along_x, Axis x_axis, Axis y_axis, std::size_t tick_target) {
    const std::vector<double> values = drawn_values(plot, along_x, x_axis, y_axis);
    const Axis axis = along_x ? x_axis : y_axis;
    if (values.empty()) {
        return axis == Axis::Log ? round_scale(1, 10, axis, tick_target)
                                 : round_scale(0, 1, axis, tick_target);
    }
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    return round_scale(*low, *high, axis, tick_target);
}

std::vector<Gap> gaps(const Series& series, Axis x_axis) {
    std::vector<Gap> runs;
    for (std::size_t i = 0; i < series.y.size(); ++i) {
        if (std::isfinite(series.y[i]) || !placeable(series.x[i], x_axis)) {
            continue;
        }
        if (!runs.empty() && runs.back().last + 1 == i) {
            runs.back().last = i;
        } else {
            runs.push_back(Gap{i, i});
        }
    }
    return runs;
}

std::vector<Note> notes(const Plot& plot, Axis x_axis, Axis y_axis, const std::string& x_name) {
    const std::string on_log = std::string("not drawn on the log ") +
                               (x_axis == Axis::Log && y_axis == Axis::Log ? "axes" : "axis");
    std::vector<Note> lines;
    for (const Series& series : plot.series()) {
        std::vector<std::string> nonfinite;  // one place per run of one kind
        std::size_t nonfinite_count = 0;
        std::vector<std::string> nonpositive;
        for (std::size_t i = 0; i < series.y.size(); ++i) {
            const double x = series.x[i];
            const double y = series.y[i];
            if (!std::isfinite(y)) {
                ++nonfinite_count;
                std::size_t last = i;
                while (last + 1 < series.y.size() && !std::isfinite(series.y[last + 1]) &&
                       std::string_view(nonfinite_name(series.y[last + 1])) == nonfinite_name(y)) {
                    ++last;
                }
                nonfinite.push_back(nonfinite_name(y) + (" at " + place(x_name, x)) +
                                    (last > i ? " to " + general(series.x[last]) : ""));
                nonfinite_count += last - i;
                i = last;
            } else if (!placeable(x, x_axis)) {
                nonpositive.push_back(place(x_name, x));
            } else if (!placeable(y, y_axis)) {
                nonpositive.push_back(general(y) + " at " + place(x_name, x));
            }
        }
        if (!nonfinite.empty()) {
            lines.push_back(
                {series.label + ": " + counted(nonfinite_count, "point", "not finite", nonfinite),
                 true});
        }
        if (!nonpositive.empty()) {
            lines.push_back(
                {series.label + ": " +
                     counted(nonpositive.size(), "value", "<= 0 " + on_log, nonpositive),
                 false});
        }
    }
    for (const Marker& marker : plot.markers()) {
        if (!placeable(marker.x, x_axis) || !placeable(marker.y, y_axis)) {
            lines.push_back({"marker " + marker.label + ": at (" + general(marker.x) + ", " +
                                 general(marker.y) + "), <= 0, " + on_log,
                             false});
        }
    }
    return lines;
}

std::size_t code_points(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::string fit(std::string_view text, std::size_t columns) {
    if (code_points(text) <= columns) {
        return std::string(text);
    }
    std::size_t seen = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ + 1 == columns) {
            return std::string(text.substr(0, i)) + "\u2026";
        }
    }
    return std::string(text);
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
template Plot live_volume(const Plan<bf16>&);

}  // namespace topos::show
