// Plot::svg and Plot::html: the chart as a standalone SVG document. Every number
// is written by std::to_chars with a fixed precision, so the output is the same
// in every locale and on every run.
#include "core/float_text.hpp"
#include "show/plot_values.hpp"
#include <topos/show/plot.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace topos::show {
namespace {

constexpr std::size_t minimum_width = 160;
constexpr std::size_t minimum_height = 120;

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

std::string general(double value) {
    std::array<char, 64> buffer{};
    const auto [end, error] = topos::detail::to_chars(
        buffer.data(), buffer.data() + buffer.size(), value + 0.0, std::chars_format::general, 6);
    return {buffer.data(), error == std::errc() ? end : buffer.data()};
}

std::string pixels(double value) {
    return fixed(value, 2);
}

// One axis: the drawn range and its ticks, both in axis units (log10 of the
// value on a log axis), and how a tick is written.
struct Scale {
    Axis axis = Axis::Linear;
    double low = 0;
    double high = 1;
    std::vector<double> ticks;
    int decimals = 0;

    double fraction(double value) const {
        const double unit = axis == Axis::Log ? std::log10(value) : value;
        return (unit - low) / (high - low);
    }

    std::string tick_label(double tick) const {
        if (axis == Axis::Log) {
            const int exponent = static_cast<int>(std::lround(tick));
            if (exponent < -4 || exponent > 6) {
                return "1e" + std::to_string(exponent);
            }
            return fixed(std::pow(10.0, exponent), std::max(0, -exponent));
        }
        const double magnitude = std::max(std::fabs(low), std::fabs(high));
        if (magnitude >= 1e7 || decimals > 6) {
            return general(tick);
        }
        return fixed(tick, decimals);
    }
};

// The round step (1, 2 or 5 times a power of ten) nearest above `raw`.
double round_step(double raw) {
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double multiple : {1.0, 2.0, 5.0}) {
        if (raw <= multiple * power * (1 + 1e-9)) {
            return multiple * power;
        }
    }
    return 10 * power;
}

Scale linear_scale(double low, double high, std::size_t tick_target) {
    if (low == high) {
        const double pad = low == 0 ? 1.0 : std::fabs(low) / 2;
        low -= pad;
        high += pad;
    }
    if (!std::isfinite(high - low)) {
        throw ShowError("plot: the values span more than a double can hold; nothing to draw");
    }
    const double step = round_step((high - low) / static_cast<double>(tick_target));
    const double first = std::floor(low / step + 1e-9);
    const double last = std::ceil(high / step - 1e-9);
    Scale scale{Axis::Linear, first * step, last * step, {}, 0};
    if (!(scale.low < scale.high)) {
        throw ShowError("plot: the values differ by less than a double resolves at their size");
    }
    const auto intervals = static_cast<long>(last - first);
    for (long i = 0; i <= intervals; ++i) {
        scale.ticks.push_back((first + static_cast<double>(i)) * step);
    }
    scale.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    return scale;
}

Scale log_scale(double low, double high, std::size_t tick_target) {
    double first = std::floor(std::log10(low) + 1e-9);
    double last = std::ceil(std::log10(high) - 1e-9);
    if (first == last) {
        first -= 1;
        last += 1;
    }
    const double stride =
        std::max(1.0, std::ceil((last - first) / static_cast<double>(tick_target)));
    Scale scale{Axis::Log, first, last, {}, 0};
    for (double k = first; k <= last; k += stride) {
        scale.ticks.push_back(k);
    }
    return scale;
}

Scale scale_of(const Plot& plot, bool along_x, Axis axis, std::size_t tick_target) {
    const std::vector<double> values = detail::drawn_values(plot, along_x, axis);
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    return axis == Axis::Log ? log_scale(*low, *high, tick_target)
                             : linear_scale(*low, *high, tick_target);
}

// How many ticks suit `length` pixels, one every `spacing` or so.
std::size_t ticks_along(double length, double spacing) {
    return static_cast<std::size_t>(std::max(2.0, length / spacing));
}

// Room on the left for the y axis's tick labels (about 6.5 pixels a
// character) and, when there is one, the y label.
double left_margin(const Scale& y, bool y_labelled) {
    std::size_t longest = 0;
    for (const double tick : y.ticks) {
        longest = std::max(longest, y.tick_label(tick).size());
    }
    return std::max(40.0, (y_labelled ? 28.0 : 6.0) + 10 + 6.5 * static_cast<double>(longest));
}

std::string series_colour(std::size_t index) {
    static constexpr std::array<std::string_view, 10> palette = {"#1f77b4",
                                                                 "#ff7f0e",
                                                                 "#2ca02c",
                                                                 "#d62728",
                                                                 "#9467bd",
                                                                 "#8c564b",
                                                                 "#e377c2",
                                                                 "#7f7f7f",
                                                                 "#bcbd22",
                                                                 "#17becf"};
    if (index < palette.size()) {
        return std::string(palette[index]);
    }
    // Past the palette, hues a golden angle apart stay distinguishable.
    const double hue = std::fmod(static_cast<double>(index) * 137.508, 360.0);
    return "hsl(" + fixed(hue, 1) + ",65%,40%)";
}

// The plot area in pixels and the mapping of values onto it.
struct Frame {
    double left = 0;
    double top = 0;
    double right = 0;
    double bottom = 0;
    Scale x;
    Scale y;

    double px(double value) const { return left + x.fraction(value) * (right - left); }

    double py(double value) const { return bottom - y.fraction(value) * (bottom - top); }

    double tick_px(double tick) const {
        return left + (tick - x.low) / (x.high - x.low) * (right - left);
    }

    double tick_py(double tick) const {
        return bottom - (tick - y.low) / (y.high - y.low) * (bottom - top);
    }
};

std::string line_element(double x1, double y1, double x2, double y2, std::string_view style) {
    return "<line x1=\"" + pixels(x1) + "\" y1=\"" + pixels(y1) + "\" x2=\"" + pixels(x2) +
           "\" y2=\"" + pixels(y2) + "\" " + std::string(style) + "/>";
}

std::string text_element(double x, double y, std::string_view attributes, std::string_view text) {
    return "<text x=\"" + pixels(x) + "\" y=\"" + pixels(y) + "\" " + std::string(attributes) +
           ">" + escape(text) + "</text>";
}

std::string x_ticks(const Frame& frame) {
    std::string out = "<g class=\"ticks x-ticks\">";
    for (const double tick : frame.x.ticks) {
        const double x = frame.tick_px(tick);
        out += "<g class=\"tick\">";
        out += line_element(x, frame.top, x, frame.bottom, "class=\"grid\" stroke=\"#e6e6e6\"");
        out += line_element(x, frame.bottom, x, frame.bottom + 5, "stroke=\"#333333\"");
        out += text_element(x,
                            frame.bottom + 17,
                            "text-anchor=\"middle\" fill=\"#333333\"",
                            frame.x.tick_label(tick));
        out += "</g>";
    }
    return out + "</g>";
}

std::string y_ticks(const Frame& frame) {
    std::string out = "<g class=\"ticks y-ticks\">";
    for (const double tick : frame.y.ticks) {
        const double y = frame.tick_py(tick);
        out += "<g class=\"tick\">";
        out += line_element(frame.left, y, frame.right, y, "class=\"grid\" stroke=\"#e6e6e6\"");
        out += line_element(frame.left - 5, y, frame.left, y, "stroke=\"#333333\"");
        out += text_element(frame.left - 8,
                            y + 4,
                            "text-anchor=\"end\" fill=\"#333333\"",
                            frame.y.tick_label(tick));
        out += "</g>";
    }
    return out + "</g>";
}

std::string axes(const Frame& frame) {
    return "<g class=\"axes\" stroke=\"#333333\">" +
           line_element(frame.left, frame.bottom, frame.right, frame.bottom, "class=\"x-axis\"") +
           line_element(frame.left, frame.top, frame.left, frame.bottom, "class=\"y-axis\"") +
           "</g>";
}

// Straight segments, or steps: each value held until the next x, then a rise.
std::string path_data(const Frame& frame, const Series& series) {
    if (series.x.size() == 1) {
        // A lone point is drawn as a small ring around it.
        const double x = frame.px(series.x[0]);
        const double y = frame.py(series.y[0]);
        return std::string("M")
            .append(pixels(x - 3))
            .append(",")
            .append(pixels(y))
            .append(" a3,3 0 1,0 6,0 a3,3 0 1,0 -6,0");
    }
    // Appended piece by piece: g++ 12 at -O3 warns falsely (-Wrestrict) of "M" + text.
    std::string d("M");
    d.append(pixels(frame.px(series.x[0]))).append(",").append(pixels(frame.py(series.y[0])));
    for (std::size_t i = 1; i < series.x.size(); ++i) {
        const std::string x = pixels(frame.px(series.x[i]));
        const std::string y = pixels(frame.py(series.y[i]));
        if (series.stroke == Stroke::Steps) {
            d.append(" H").append(x).append(" V").append(y);
        } else {
            d.append(" L").append(x).append(",").append(y);
        }
    }
    return d;
}

std::string series_paths(const Frame& frame, const std::vector<Series>& all) {
    std::string out =
        "<g class=\"series-group\" fill=\"none\" stroke-width=\"1.75\" "
        "stroke-linejoin=\"round\" stroke-linecap=\"round\">";
    for (std::size_t i = 0; i < all.size(); ++i) {
        out += "<path class=\"series series-" + std::to_string(i) + "\" stroke=\"" +
               series_colour(i) + "\" d=\"" + path_data(frame, all[i]) + "\"/>";
    }
    return out + "</g>";
}

// A marker's label sits beside its dot, turned inward near the frame's edges.
std::string marker_label(const Frame& frame, double x, double y, const std::string& label) {
    const bool right_half = x > (frame.left + frame.right) / 2;
    const double label_y = y - 8 < frame.top + 10 ? y + 16 : y - 8;
    const double label_x = right_half ? x - 7 : x + 7;
    const std::string anchor = right_half ? "end" : "start";
    return text_element(
        label_x,
        label_y,
        "class=\"marker-label\" text-anchor=\"" + anchor +
            "\" fill=\"#222222\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"",
        label);
}

std::string marker_elements(const Frame& frame, const std::vector<Marker>& all) {
    std::string out = "<g class=\"markers\">";
    for (const Marker& marker : all) {
        const double x = frame.px(marker.x);
        const double y = frame.py(marker.y);
        out += "<circle class=\"marker\" cx=\"" + pixels(x) + "\" cy=\"" + pixels(y) +
               "\" r=\"4\" fill=\"#222222\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>";
        out += marker_label(frame, x, y, marker.label);
    }
    return out + "</g>";
}

std::string legend(const Frame& frame, const std::vector<Series>& all) {
    std::size_t longest = 0;
    for (const Series& series : all) {
        longest = std::max(longest, detail::code_points(series.label));
    }
    const double row = 16;
    const double width = 32 + 6.5 * static_cast<double>(longest);
    const double height = 8 + row * static_cast<double>(all.size());
    const double left = std::max(frame.left + 4, frame.right - width - 8);
    const double top = frame.top + 8;
    std::string out = "<g class=\"legend\"><rect x=\"" + pixels(left) + "\" y=\"" + pixels(top) +
                      "\" width=\"" + pixels(width) + "\" height=\"" + pixels(height) +
                      "\" fill=\"#ffffff\" fill-opacity=\"0.85\" stroke=\"#cccccc\"/>";
    for (std::size_t i = 0; i < all.size(); ++i) {
        const double y = top + 4 + row * (static_cast<double>(i) + 0.5);
        out += "<g class=\"legend-entry\">";
        out += line_element(
            left + 6, y, left + 24, y, "stroke=\"" + series_colour(i) + "\" stroke-width=\"2\"");
        out += text_element(left + 29, y + 4, "fill=\"#222222\"", all[i].label);
        out += "</g>";
    }
    return out + "</g>";
}

std::string labels(const Frame& frame,
                   double width,
                   double height,
                   const std::string& title,
                   const std::string& x_label,
                   const std::string& y_label) {
    std::string out;
    if (!title.empty()) {
        out += text_element(
            width / 2,
            20,
            "class=\"title\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\"",
            title);
    }
    if (!x_label.empty()) {
        out += text_element((frame.left + frame.right) / 2,
                            height - 10,
                            "class=\"x-label\" text-anchor=\"middle\"",
                            x_label);
    }
    if (!y_label.empty()) {
        const double x = 14;
        const double y = (frame.top + frame.bottom) / 2;
        out += text_element(x,
                            y,
                            "class=\"y-label\" text-anchor=\"middle\" transform=\"rotate(-90 " +
                                pixels(x) + " " + pixels(y) + ")\"",
                            y_label);
    }
    return out;
}

}  // namespace

std::string Plot::svg(std::size_t width, std::size_t height) const {
    if (width < minimum_width || height < minimum_height) {
        throw ShowError("plot: an SVG of " + std::to_string(width) + " by " +
                        std::to_string(height) + " pixels is too small; give at least " +
                        std::to_string(minimum_width) + " by " + std::to_string(minimum_height));
    }
    const auto w = static_cast<double>(width);
    const auto h = static_cast<double>(height);
    Frame frame;
    frame.top = title_.empty() ? 14 : 34;
    frame.bottom = h - (x_label_.empty() ? 28 : 44);
    frame.y = scale_of(*this, false, y_axis_, ticks_along(frame.bottom - frame.top, 45));
    frame.left = left_margin(frame.y, !y_label_.empty());
    frame.right = w - 16;
    frame.x = scale_of(*this, true, x_axis_, ticks_along(frame.right - frame.left, 90));

    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"topos-plot-svg\" width=\"" +
           std::to_string(width) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
           std::to_string(width) + " " + std::to_string(height) +
           "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    out += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + std::to_string(width) +
           "\" height=\"" + std::to_string(height) + "\" fill=\"#ffffff\"/>\n";
    out += x_ticks(frame) + "\n" + y_ticks(frame) + "\n" + axes(frame) + "\n";
    out += labels(frame, w, h, title_, x_label_, y_label_) + "\n";
    out += series_paths(frame, series_) + "\n";
    out += marker_elements(frame, markers_) + "\n";
    out += legend(frame, series_) + "\n";
    return out + "</svg>\n";
}

Html Plot::html(std::size_t width, std::size_t height) const {
    std::string document = svg(width, height);
    const std::size_t start = document.find("<svg");
    return Html("<div class=\"topos-plot\">" + document.substr(start) + "</div>");
}

}  // namespace topos::show
