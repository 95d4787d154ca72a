// Plot::text: the chart for a terminal. The plot area is a grid of braille
// characters (U+2800 to U+28FF), each cell 2 dots wide and 4 tall; the y axis
// carries its extremes (and a middle value) on the left, the x axis its range
// below, and a legend names each series and marker.
#include "core/float_text.hpp"
#include "show/plot_values.hpp"
#include <topos/show/plot.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace topos::show {
namespace {

constexpr std::size_t minimum_columns = 20;
constexpr std::size_t minimum_rows = 5;

// Distinct characters for the markers, in the order they were added.
constexpr std::array<std::string_view, 8> marker_glyphs = {
    "\u25CF", "\u25C6", "\u25B2", "\u25A0", "\u2605", "\u271A", "\u2716", "\u25BC"};

// What stands for a lone series in the legend: a braille stroke.
constexpr std::string_view lone_series_glyph = "\u28C0";

// Four significant digits or more: whole numbers up to a million as they are,
// 0.001 and up in fixed notation, the rest in scientific.
std::string number(double value) {
    std::array<char, 64> buffer{};
    char* const first = buffer.data();
    char* const last = first + buffer.size();
    const double magnitude = std::fabs(value);
    std::to_chars_result written{};
    if (magnitude < 1e6 && (magnitude >= 1e-3 || value == 0)) {
        const int decimals =
            std::max(0, 3 - static_cast<int>(std::floor(std::log10(std::max(magnitude, 1e-3)))));
        written =
            topos::detail::to_chars(first, last, value + 0.0, std::chars_format::fixed, decimals);
    } else {
        written = topos::detail::to_chars(first, last, value + 0.0, std::chars_format::general, 4);
    }
    std::string text(first, written.ec == std::errc() ? written.ptr : first);
    if (text.find('.') != std::string::npos && text.find('e') == std::string::npos) {
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') {
            text.pop_back();
        }
    }
    return text == "-0" ? "0" : text;
}

// The first `columns` code points of `text`.
std::string cut(std::string_view text, std::size_t columns) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == columns) {
            return std::string(text.substr(0, i));
        }
    }
    return std::string(text);
}

// `text` in at most `columns` columns, an ellipsis closing what was cut.
std::string fit(std::string_view text, std::size_t columns) {
    if (detail::code_points(text) <= columns) {
        return std::string(text);
    }
    return cut(text, columns - 1) + "\u2026";
}

std::string padded_left(const std::string& text, std::size_t columns) {
    const std::size_t used = detail::code_points(text);
    return std::string(used < columns ? columns - used : 0, ' ') + text;
}

// One axis's drawn range, in axis units (log10 of the value on a log axis).
struct Range {
    Axis axis = Axis::Linear;
    double low = 0;
    double high = 1;

    double fraction(double value) const {
        const double unit = axis == Axis::Log ? std::log10(value) : value;
        return (unit - low) / (high - low);
    }

    // The value at `fraction` of the way from low to high.
    double value_at(double fraction) const {
        const double unit = low + fraction * (high - low);
        return axis == Axis::Log ? std::pow(10.0, unit) : unit;
    }
};

Range range_of(const Plot& plot, bool along_x, Axis axis) {
    std::vector<double> units = detail::drawn_values(plot, along_x, axis);
    if (axis == Axis::Log) {
        for (double& value : units) {
            value = std::log10(value);
        }
    }
    const auto [low, high] = std::minmax_element(units.begin(), units.end());
    Range range{axis, *low, *high};
    if (!std::isfinite(range.high - range.low)) {
        throw ShowError("plot: the values span more than a double can hold; nothing to draw");
    }
    if (range.low == range.high) {
        const double pad =
            axis == Axis::Log ? 0.5 : (range.low == 0 ? 1.0 : std::fabs(range.low) / 2);
        range.low -= pad;
        range.high += pad;
    }
    return range;
}

// The plot area: braille dots, and characters (markers, series tags) drawn over them.
class Canvas {
public:
    Canvas(std::size_t columns, std::size_t rows)
        : columns_(columns), rows_(rows), dots_(columns * rows, 0), glyphs_(columns * rows) {}

    long dot_columns() const { return static_cast<long>(columns_ * 2); }

    long dot_rows() const { return static_cast<long>(rows_ * 4); }

    void dot(long x, long y) {
        if (x < 0 || y < 0 || x >= dot_columns() || y >= dot_rows()) {
            return;
        }
        // Braille numbers its dots down the left column (1, 2, 3, 7), then the right (4, 5, 6, 8).
        static constexpr std::array<std::array<std::uint8_t, 4>, 2> bits = {
            {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}};
        dots_[cell(x / 2, y / 4)] |=
            bits[static_cast<std::size_t>(x % 2)][static_cast<std::size_t>(y % 4)];
    }

    // Dots from (x0, y0) to (x1, y1), by Bresenham's walk.
    void segment(long x0, long y0, long x1, long y1) {
        const long dx = std::labs(x1 - x0);
        const long dy = -std::labs(y1 - y0);
        const long step_x = x0 < x1 ? 1 : -1;
        const long step_y = y0 < y1 ? 1 : -1;
        long error = dx + dy;
        while (true) {
            dot(x0, y0);
            if (x0 == x1 && y0 == y1) {
                return;
            }
            const long doubled = 2 * error;
            if (doubled >= dy) {
                error += dy;
                x0 += step_x;
            }
            if (doubled <= dx) {
                error += dx;
                y0 += step_y;
            }
        }
    }

    // Whether the cell is on the canvas and holds neither dots nor a character.
    bool free(long column, long row) const {
        return inside(column, row) && dots_[cell(column, row)] == 0 && free_of_glyphs(column, row);
    }

    bool free_of_glyphs(long column, long row) const {
        return inside(column, row) && glyphs_[cell(column, row)].empty();
    }

    void glyph(long column, long row, std::string_view text) {
        if (inside(column, row)) {
            glyphs_[cell(column, row)] = std::string(text);
        }
    }

    std::string row(std::size_t row) const {
        std::string out;
        for (std::size_t column = 0; column < columns_; ++column) {
            out += cell_text(cell(column, row));
        }
        return out;
    }

    std::size_t columns() const { return columns_; }

private:
    bool inside(long column, long row) const {
        return column >= 0 && row >= 0 && column < static_cast<long>(columns_) &&
               row < static_cast<long>(rows_);
    }

    std::size_t cell(std::size_t column, std::size_t row) const { return row * columns_ + column; }

    std::size_t cell(long column, long row) const {
        return cell(static_cast<std::size_t>(column), static_cast<std::size_t>(row));
    }

    std::string cell_text(std::size_t index) const {
        if (!glyphs_[index].empty()) {
            return glyphs_[index];
        }
        const std::uint8_t bits = dots_[index];
        if (bits == 0) {
            return " ";
        }
        // U+2800 + bits in UTF-8.
        return {static_cast<char>(0xE2),
                static_cast<char>(0xA0 | (bits >> 6)),
                static_cast<char>(0x80 | (bits & 0x3F))};
    }

    std::size_t columns_;
    std::size_t rows_;
    std::vector<std::uint8_t> dots_;
    std::vector<std::string> glyphs_;
};

// Maps values onto the canvas's dots.
struct Projection {
    Range x;
    Range y;
    long dot_columns = 1;
    long dot_rows = 1;

    long dot_x(double value) const {
        return std::lround(x.fraction(value) * static_cast<double>(dot_columns - 1));
    }

    long dot_y(double value) const {
        return std::lround((1 - y.fraction(value)) * static_cast<double>(dot_rows - 1));
    }
};

void draw_series(Canvas& canvas, const Projection& to, const Series& series) {
    long x = to.dot_x(series.x[0]);
    long y = to.dot_y(series.y[0]);
    canvas.dot(x, y);
    for (std::size_t i = 1; i < series.x.size(); ++i) {
        const long next_x = to.dot_x(series.x[i]);
        const long next_y = to.dot_y(series.y[i]);
        if (series.stroke == Stroke::Steps) {
            canvas.segment(x, y, next_x, y);
            canvas.segment(next_x, y, next_x, next_y);
        } else {
            canvas.segment(x, y, next_x, next_y);
        }
        x = next_x;
        y = next_y;
    }
}

std::string series_tag(std::size_t index) {
    return std::string(1, static_cast<char>('A' + index % 26));
}

// A series' tag goes in the first free cell beside its last point: right,
// above, below, left; on the point itself when all four are taken.
void tag_series_end(Canvas& canvas, const Projection& to, const Series& series, std::size_t index) {
    const long column = to.dot_x(series.x.back()) / 2;
    const long row = to.dot_y(series.y.back()) / 4;
    const std::array<std::array<long, 2>, 4> beside = {
        {{column + 1, row}, {column, row - 1}, {column, row + 1}, {column - 1, row}}};
    for (const auto& [c, r] : beside) {
        if (canvas.free(c, r)) {
            canvas.glyph(c, r, series_tag(index));
            return;
        }
    }
    if (canvas.free_of_glyphs(column, row)) {
        canvas.glyph(column, row, series_tag(index));
    }
}

void place_marker(Canvas& canvas, const Projection& to, const Marker& marker, std::size_t index) {
    canvas.glyph(to.dot_x(marker.x) / 2,
                 to.dot_y(marker.y) / 4,
                 marker_glyphs[index % marker_glyphs.size()]);
}

std::vector<std::string> legend_entries(const Plot& plot) {
    std::vector<std::string> entries;
    const bool tagged = plot.series().size() > 1;
    for (std::size_t i = 0; i < plot.series().size(); ++i) {
        const std::string symbol = tagged ? series_tag(i) : std::string(lone_series_glyph);
        entries.push_back(symbol + " " + plot.series()[i].label);
    }
    for (std::size_t i = 0; i < plot.markers().size(); ++i) {
        entries.push_back(std::string(marker_glyphs[i % marker_glyphs.size()]) + " " +
                          plot.markers()[i].label);
    }
    return entries;
}

// The entries packed into lines of `width` columns, at most `most` lines; an
// ellipsis ends the last line when some did not fit.
std::vector<std::string> legend_lines(const std::vector<std::string>& entries,
                                      std::size_t width,
                                      std::size_t most) {
    std::vector<std::string> lines;
    std::string line;
    for (const std::string& entry : entries) {
        if (!line.empty() && detail::code_points(line) + 2 + detail::code_points(entry) > width) {
            lines.push_back(line);
            line.clear();
        }
        line += (line.empty() ? "" : "  ") + fit(entry, width);
    }
    lines.push_back(line);
    if (lines.size() > most) {
        lines.resize(most);
        lines.back() = cut(lines.back(), width - 2) + " \u2026";
    }
    return lines;
}

std::string header(const std::string& title, const std::string& y_label, std::size_t width) {
    std::string text = title;
    if (!y_label.empty()) {
        text += (text.empty() ? "" : "  ") + std::string("\u2191 ") + y_label;
    }
    return fit(text, width);
}

// The row labels of the y axis: its extremes, and the middle row's value.
std::vector<std::string> y_tick_labels(const Range& y, std::size_t rows) {
    std::vector<std::string> labels(rows);
    labels.back() = number(y.value_at(0));
    labels.front() = number(y.value_at(1));
    if (rows >= 3) {
        const std::size_t middle = (rows - 1) / 2;
        const double centre = (static_cast<double>(middle) + 0.5) / static_cast<double>(rows);
        labels[middle] = number(y.value_at(1 - centre));
    }
    return labels;
}

std::string x_range_line(const Range& x,
                         const std::string& x_label,
                         std::size_t gutter,
                         std::size_t width) {
    const std::string low = number(x.value_at(0));
    const std::string high = number(x.value_at(1));
    std::string line = std::string(gutter, ' ') + low;
    const std::size_t room =
        width - std::min(width, detail::code_points(line) + detail::code_points(high));
    if (room < 1) {
        return fit(line, width);
    }
    const std::size_t label_columns = detail::code_points(x_label);
    if (!x_label.empty() && label_columns + 4 <= room) {
        const std::size_t before = (room - label_columns) / 2;
        return line + std::string(before, ' ') + x_label +
               std::string(room - before - label_columns, ' ') + high;
    }
    return line + std::string(room, ' ') + high;
}

// The series, then the markers over them, then the tags that tell several series apart.
Canvas painted(
    const Plot& plot, const Range& x, const Range& y, std::size_t columns, std::size_t rows) {
    Canvas canvas(columns, rows);
    const Projection to{x, y, canvas.dot_columns(), canvas.dot_rows()};
    for (const Series& series : plot.series()) {
        draw_series(canvas, to, series);
    }
    for (std::size_t i = 0; i < plot.markers().size(); ++i) {
        place_marker(canvas, to, plot.markers()[i], i);
    }
    for (std::size_t i = 0; plot.series().size() > 1 && i < plot.series().size(); ++i) {
        tag_series_end(canvas, to, plot.series()[i], i);
    }
    return canvas;
}

std::string horizontal_rule(std::size_t columns) {
    std::string rule;
    for (std::size_t column = 0; column < columns; ++column) {
        rule += "\u2500";
    }
    return rule;
}

std::string trimmed(std::string line) {
    line.erase(line.find_last_not_of(' ') + 1);
    return line;
}

}  // namespace

std::string Plot::text(std::size_t width, std::size_t height) const {
    if (width < minimum_columns || height < minimum_rows) {
        throw ShowError("plot: text of " + std::to_string(width) + " columns by " +
                        std::to_string(height) + " lines is too small; give at least " +
                        std::to_string(minimum_columns) + " by " + std::to_string(minimum_rows));
    }
    const Range x = range_of(*this, true, x_axis_);
    const Range y = range_of(*this, false, y_axis_);
    const bool has_header = !title_.empty() || !y_label_.empty();
    const std::size_t around = (has_header ? 1 : 0) + 2;  // the header, the x axis, its range
    const std::vector<std::string> legend =
        legend_lines(legend_entries(*this), width, height - around - 1);
    const std::size_t rows = height - around - legend.size();

    const std::vector<std::string> tick_labels = y_tick_labels(y, rows);
    std::size_t label_columns = 0;
    for (const std::string& label : tick_labels) {
        label_columns = std::max(label_columns, detail::code_points(label));
    }
    const Canvas canvas = painted(*this, x, y, width - label_columns - 2, rows);

    std::string out;
    if (has_header) {
        out += trimmed(header(title_, y_label_, width)) + "\n";
    }
    for (std::size_t row = 0; row < rows; ++row) {
        const std::string axis = tick_labels[row].empty() ? "\u2502" : "\u2524";
        out +=
            trimmed(padded_left(tick_labels[row], label_columns) + " " + axis + canvas.row(row)) +
            "\n";
    }
    out +=
        std::string(label_columns + 1, ' ') + "\u2514" + horizontal_rule(canvas.columns()) + "\n";
    out += trimmed(x_range_line(x, x_label_, label_columns + 2, width)) + "\n";
    for (const std::string& line : legend) {
        out += trimmed(line) + "\n";
    }
    return out;
}

}  // namespace topos::show
