// Plot::svg and Plot::html: the chart as a standalone SVG document. Every number
// is written by std::to_chars with a fixed precision, so the output is the same
// in every locale and on every run. A run of points that are not finite breaks
// the line and is marked with a cross; the legend ends with notes of what was
// not drawn.
#include "show/plot_values.hpp"
#include <topos/show/plot.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace topos::show {
namespace {

constexpr std::size_t minimum_width = 160;
constexpr std::size_t minimum_height = 120;

using detail::fixed;
using detail::Scale;

std::string pixels(double value) {
    return fixed(value, 2);
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
        const double x = frame.px(tick);
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
        const double y = frame.py(tick);
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

// A lone point (no drawn neighbour) is drawn as a small ring around it.
void ring(std::string& d, double x, double y) {
    d.append(d.empty() ? "M" : " M")
        .append(pixels(x - 3))
        .append(",")
        .append(pixels(y))
        .append(" a3,3 0 1,0 6,0 a3,3 0 1,0 -6,0");
}

// Straight segments, or steps: each value held until the next x, then a rise.
// A point that cannot be drawn (not finite, or <= 0 on a log axis) breaks the
// path, which starts again at the next drawn point.
std::string path_data(const Frame& frame, const Series& series) {
    const std::size_t count = series.x.size();
    const auto drawn = [&](std::size_t i) {
        return i < count && detail::drawable(series, i, frame.x.axis, frame.y.axis);
    };
    // Appended piece by piece: g++ 12 at -O3 warns falsely (-Wrestrict) of "M" + text.
    std::string d;
    for (std::size_t i = 0; i < count; ++i) {
        if (!drawn(i)) {
            continue;
        }
        const double px = frame.px(series.x[i]);
        const double py = frame.py(series.y[i]);
        if (i == 0 || !drawn(i - 1)) {
            if (!drawn(i + 1)) {
                ring(d, px, py);
            } else {
                d.append(d.empty() ? "M" : " M").append(pixels(px)).append(",").append(pixels(py));
            }
        } else if (series.stroke == Stroke::Steps) {
            d.append(" H").append(pixels(px)).append(" V").append(pixels(py));
        } else {
            d.append(" L").append(pixels(px)).append(",").append(pixels(py));
        }
    }
    return d;
}

// Where a gap's mark sits: at the frame's top for +inf, its bottom for -inf,
// and for NaN beside the last point drawn before it (or the first after it).
double gap_y(const Frame& frame, const Series& series, const detail::Gap& gap) {
    const double first = series.y[gap.first];
    if (std::isinf(first)) {
        return first > 0 ? frame.top + 10 : frame.bottom - 3;
    }
    for (std::size_t i = gap.first; i-- > 0;) {
        if (detail::drawable(series, i, frame.x.axis, frame.y.axis)) {
            return frame.py(series.y[i]) + 4;
        }
    }
    for (std::size_t i = gap.last + 1; i < series.y.size(); ++i) {
        if (detail::drawable(series, i, frame.x.axis, frame.y.axis)) {
            return frame.py(series.y[i]) + 4;
        }
    }
    return (frame.top + frame.bottom) / 2;
}

// A cross in the series' colour where each run of non-finite points begins.
std::string gap_marks(const Frame& frame, const std::vector<Series>& all) {
    std::string out = "<g class=\"gaps\" text-anchor=\"middle\" font-weight=\"bold\">";
    for (std::size_t s = 0; s < all.size(); ++s) {
        for (const detail::Gap& gap : detail::gaps(all[s], frame.x.axis)) {
            out += text_element(frame.px(all[s].x[gap.first]),
                                gap_y(frame, all[s], gap),
                                "class=\"gap\" fill=\"" + series_colour(s) + "\"",
                                detail::gap_glyph);
        }
    }
    return out + "</g>";
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
        if (!detail::placeable(marker.x, frame.x.axis) ||
            !detail::placeable(marker.y, frame.y.axis)) {
            continue;  // named in the notes
        }
        const double x = frame.px(marker.x);
        const double y = frame.py(marker.y);
        out += "<circle class=\"marker\" cx=\"" + pixels(x) + "\" cy=\"" + pixels(y) +
               "\" r=\"4\" fill=\"#222222\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>";
        out += marker_label(frame, x, y, marker.label);
    }
    return out + "</g>";
}

// The series' names, then the notes of what was not drawn, each cut to the
// frame's width.
std::string legend(const Frame& frame,
                   const std::vector<Series>& all,
                   const std::vector<detail::Note>& notes) {
    const auto room =
        static_cast<std::size_t>(std::max(8.0, (frame.right - frame.left - 24) / 6.5));
    std::size_t longest = 0;
    for (const Series& series : all) {
        longest = std::max(longest, detail::code_points(series.label));
    }
    std::size_t longest_note = 0;
    std::vector<std::string> lines;
    for (const detail::Note& note : notes) {
        lines.push_back(detail::fit(
            (note.marked ? std::string(detail::gap_glyph) + " " : "") + note.text, room));
        longest_note = std::max(longest_note, detail::code_points(lines.back()));
    }
    const double row = 16;
    const double width = std::max(32 + 6.5 * static_cast<double>(longest),
                                  12 + 6.5 * static_cast<double>(longest_note));
    const double height = 8 + row * static_cast<double>(all.size() + notes.size());
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
    if (!notes.empty()) {
        out += "<g class=\"plot-notes\" fill=\"#a51d2d\">";
        for (std::size_t i = 0; i < notes.size(); ++i) {
            const double y = top + 4 + row * (static_cast<double>(all.size() + i) + 0.5);
            out += text_element(left + 6, y + 4, "class=\"plot-note\"", lines[i]);
        }
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
    frame.y =
        detail::scale_of(*this, false, x_axis_, y_axis_, ticks_along(frame.bottom - frame.top, 45));
    frame.left = left_margin(frame.y, !y_label_.empty());
    frame.right = w - 16;
    frame.x =
        detail::scale_of(*this, true, x_axis_, y_axis_, ticks_along(frame.right - frame.left, 90));

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
    out += gap_marks(frame, series_) + "\n";
    out += marker_elements(frame, markers_) + "\n";
    out += legend(frame, series_, detail::notes(*this, x_axis_, y_axis_, x_label_)) + "\n";
    return out + "</svg>\n";
}

Html Plot::html(std::size_t width, std::size_t height) const {
    std::string document = svg(width, height);
    const std::size_t start = document.find("<svg");
    return Html("<div class=\"topos-plot\">" + document.substr(start) + "</div>");
}

}  // namespace topos::show
