// Plot::text: the chart for a terminal. The plot area is a grid of braille
// characters (U+2800 to U+28FF), each cell 2 dots wide and 4 tall; both axes
// carry ticks at round numbers (the rule the SVG uses, plot_values.hpp), the
// y axis's on the left a line apart or more, the x axis's below with the x
// label in the space between them nearest the middle; a legend names each series and
// marker, then says what was not drawn. A run of points that are not finite
// breaks the line and is marked with a cross.
#include "show/plot_values.hpp"
#include <topos/show/plot.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
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

using detail::fit;
using detail::Scale;

std::string padded_left(const std::string& text, std::size_t columns) {
    const std::size_t used = detail::code_points(text);
    return std::string(used < columns ? columns - used : 0, ' ') + text;
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
    Scale x;
    Scale y;
    long dot_columns = 1;
    long dot_rows = 1;

    long dot_x(double value) const {
        return std::lround(x.fraction(value) * static_cast<double>(dot_columns - 1));
    }

    long dot_y(double value) const {
        return std::lround((1 - y.fraction(value)) * static_cast<double>(dot_rows - 1));
    }

    bool drawable(const Series& series, std::size_t i) const {
        return detail::drawable(series, i, x.axis, y.axis);
    }
};

// The series' points joined; a point that cannot be drawn breaks the line.
void draw_series(Canvas& canvas, const Projection& to, const Series& series) {
    bool joined = false;
    long x = 0;
    long y = 0;
    for (std::size_t i = 0; i < series.x.size(); ++i) {
        if (!to.drawable(series, i)) {
            joined = false;
            continue;
        }
        const long next_x = to.dot_x(series.x[i]);
        const long next_y = to.dot_y(series.y[i]);
        if (!joined) {
            canvas.dot(next_x, next_y);
        } else if (series.stroke == Stroke::Steps) {
            canvas.segment(x, y, next_x, y);
            canvas.segment(next_x, y, next_x, next_y);
        } else {
            canvas.segment(x, y, next_x, next_y);
        }
        x = next_x;
        y = next_y;
        joined = true;
    }
}

// The row of a gap's cross: the top for +inf, the bottom for -inf, and for
// NaN the row of the last point drawn before it (or the first after it).
long gap_row(const Projection& to, const Series& series, const detail::Gap& gap) {
    const double first = series.y[gap.first];
    if (std::isinf(first)) {
        return first > 0 ? 0 : (to.dot_rows - 1) / 4;
    }
    for (std::size_t i = gap.first; i-- > 0;) {
        if (to.drawable(series, i)) {
            return to.dot_y(series.y[i]) / 4;
        }
    }
    for (std::size_t i = gap.last + 1; i < series.y.size(); ++i) {
        if (to.drawable(series, i)) {
            return to.dot_y(series.y[i]) / 4;
        }
    }
    return (to.dot_rows - 1) / 8;
}

void mark_gaps(Canvas& canvas, const Projection& to, const Series& series) {
    for (const detail::Gap& gap : detail::gaps(series, to.x.axis)) {
        canvas.glyph(
            to.dot_x(series.x[gap.first]) / 2, gap_row(to, series, gap), detail::gap_glyph);
    }
}

std::string series_tag(std::size_t index) {
    return std::string(1, static_cast<char>('A' + index % 26));
}

// A series' tag goes in the first free cell beside its last point: right,
// above, below, left; on the point itself when all four are taken.
void tag_series_end(Canvas& canvas, const Projection& to, const Series& series, std::size_t index) {
    std::size_t last = series.x.size();
    while (last > 0 && !to.drawable(series, last - 1)) {
        --last;
    }
    if (last == 0) {
        return;
    }
    const long column = to.dot_x(series.x[last - 1]) / 2;
    const long row = to.dot_y(series.y[last - 1]) / 4;
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
    if (!detail::placeable(marker.x, to.x.axis) || !detail::placeable(marker.y, to.y.axis)) {
        return;  // named in the notes
    }
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

// The notes of what was not drawn, a cross before those whose gaps are marked.
std::vector<std::string> note_entries(const std::vector<detail::Note>& notes) {
    std::vector<std::string> entries;
    entries.reserve(notes.size());
    for (const detail::Note& note : notes) {
        entries.push_back((note.marked ? std::string(detail::gap_glyph) + " " : "") + note.text);
    }
    return entries;
}

// `text` in lines of at most `width` columns, broken at spaces, the lines
// after the first indented by two; a word too long for a line is cut.
std::vector<std::string> wrapped(const std::string& text, std::size_t width) {
    std::vector<std::string> lines;
    std::string line;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t to = text.find(' ', from);
        to = to == std::string::npos ? text.size() : to;
        const std::string word = text.substr(from, to - from);
        from = to + 1;
        const std::size_t used = detail::code_points(line);
        if (used > 2 && used + 1 + detail::code_points(word) > width) {
            lines.push_back(line);
            line = "  ";
        }
        line += (line.empty() || line == "  " ? "" : " ") + word;
        line = fit(line, width);
    }
    lines.push_back(line);
    return lines;
}

// The entries packed into lines of `width` columns, then each note on lines of
// its own, at most `most` lines; an ellipsis ends the last line when some did
// not fit.
std::vector<std::string> legend_lines(const std::vector<std::string>& entries,
                                      const std::vector<std::string>& notes,
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
    for (const std::string& note : notes) {
        for (std::string& part : wrapped(note, width)) {
            lines.push_back(std::move(part));
        }
    }
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

// The line of each of `scale`'s ticks on a y axis of `rows` lines: the line
// its dots fall in.
std::vector<long> tick_rows(const Scale& scale, std::size_t rows) {
    const Projection to{Scale{}, scale, 1, static_cast<long>(rows * 4)};
    std::vector<long> lines;
    for (const double tick : scale.ticks) {
        lines.push_back(to.dot_y(tick) / 4);
    }
    return lines;
}

// The y axis for `rows` lines: the most round ticks that leave a line free
// between two labels (two ticks, however close, when none do).
Scale y_scale(const Plot& plot, Axis x_axis, Axis y_axis, std::size_t rows) {
    for (std::size_t target = std::max<std::size_t>(1, rows / 3);; --target) {
        Scale scale = detail::scale_of(plot, false, x_axis, y_axis, target);
        const std::vector<long> lines = tick_rows(scale, rows);
        bool apart = true;
        for (std::size_t i = 1; i < lines.size(); ++i) {
            apart = apart && std::labs(lines[i] - lines[i - 1]) >= 2;
        }
        if (apart || target == 1) {
            return scale;
        }
    }
}

// The row labels of the y axis: each tick's label on its line, the first of
// two ticks that share a line.
std::vector<std::string> y_tick_labels(const Scale& y, std::size_t rows) {
    std::vector<std::string> labels(rows);
    const std::vector<long> lines = tick_rows(y, rows);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto line = static_cast<std::size_t>(lines[i]);
        if (line < rows && labels[line].empty()) {
            labels[line] = y.tick_label(y.ticks[i]);
        }
    }
    return labels;
}

// The line under the x axis: tick labels centred under their columns, the x
// label in the widest space between them, and the canvas columns ticked.
struct XTicks {
    Scale scale;
    std::vector<long> columns;
    std::string line;
    bool complete = true;  // every tick labelled, and the x label placed
};

// `text` written into `cells` (one code point each) from `at`.
void write(std::vector<std::string>& cells, std::size_t at, std::string_view text) {
    for (std::size_t i = 0; i < text.size() && at < cells.size();) {
        std::size_t length = 1;
        while (i + length < text.size() &&
               (static_cast<unsigned char>(text[i + length]) & 0xC0) == 0x80) {
            ++length;
        }
        cells[at++] = std::string(text.substr(i, length));
        i += length;
    }
}

XTicks x_ticks_for(const Scale& scale,
                   const std::string& x_label,
                   std::size_t columns,
                   std::size_t gutter,
                   std::size_t width) {
    XTicks ticks{scale, {}, "", true};
    std::vector<std::string> cells(width, " ");
    const Projection to{scale, Scale{}, static_cast<long>(columns * 2), 1};
    std::size_t free_from = 0;  // the first cell after the last label and a space
    std::vector<std::pair<std::size_t, std::size_t>> spaces;  // [from, to) between labels
    for (const double tick : scale.ticks) {
        const long column = to.dot_x(tick) / 2;
        ticks.columns.push_back(column);
        const std::string label = scale.tick_label(tick);
        const std::size_t length = detail::code_points(label);
        const std::size_t centre = gutter + static_cast<std::size_t>(column);
        std::size_t start = centre > length / 2 ? centre - length / 2 : 0;
        start = std::min(start, width > length ? width - length : 0);
        if (start < free_from || start + length > width) {
            ticks.complete = false;
            continue;
        }
        spaces.emplace_back(std::max(free_from, gutter), std::max(start, gutter));
        write(cells, start, label);
        free_from = start + length + 1;
    }
    spaces.emplace_back(std::max(free_from, gutter), std::max({free_from, gutter, width}));
    if (!x_label.empty()) {
        // The space over the canvas that holds the label with two columns
        // either side, nearest the centre.
        const std::size_t length = detail::code_points(x_label);
        const std::size_t centre = (gutter + width) / 2;
        std::size_t best = spaces.size();
        std::size_t best_distance = width;
        for (std::size_t i = 0; i < spaces.size(); ++i) {
            const auto [from, to] = spaces[i];
            const std::size_t middle = (from + to) / 2;
            const std::size_t distance = middle > centre ? middle - centre : centre - middle;
            if (to - from >= length + 4 && distance < best_distance) {
                best = i;
                best_distance = distance;
            }
        }
        if (best < spaces.size()) {
            const auto [from, to] = spaces[best];
            write(cells, from + (to - from - length) / 2, x_label);
        } else {
            ticks.complete = false;
        }
    }
    for (const std::string& cell : cells) {
        ticks.line += cell;
    }
    return ticks;
}

// The x axis in `columns` canvas columns: the most round ticks whose labels,
// and the x label, all fit; two, however placed, when none do.
XTicks x_ticks(const Plot& plot,
               Axis x_axis,
               Axis y_axis,
               const std::string& x_label,
               std::size_t columns,
               std::size_t gutter,
               std::size_t width) {
    for (std::size_t target = std::max<std::size_t>(1, columns / 8);; --target) {
        XTicks ticks = x_ticks_for(
            detail::scale_of(plot, true, x_axis, y_axis, target), x_label, columns, gutter, width);
        if (ticks.complete || target == 1) {
            return ticks;
        }
    }
}

// The series, then the crosses at their gaps and the markers over them, then
// the tags that tell several series apart.
Canvas painted(
    const Plot& plot, const Scale& x, const Scale& y, std::size_t columns, std::size_t rows) {
    Canvas canvas(columns, rows);
    const Projection to{x, y, canvas.dot_columns(), canvas.dot_rows()};
    for (const Series& series : plot.series()) {
        draw_series(canvas, to, series);
    }
    for (const Series& series : plot.series()) {
        mark_gaps(canvas, to, series);
    }
    for (std::size_t i = 0; i < plot.markers().size(); ++i) {
        place_marker(canvas, to, plot.markers()[i], i);
    }
    for (std::size_t i = 0; plot.series().size() > 1 && i < plot.series().size(); ++i) {
        tag_series_end(canvas, to, plot.series()[i], i);
    }
    return canvas;
}

// The x axis's rule, ticked under each tick's column.
std::string horizontal_rule(std::size_t columns, const std::vector<long>& ticked) {
    std::string rule;
    for (std::size_t column = 0; column < columns; ++column) {
        const bool tick =
            std::find(ticked.begin(), ticked.end(), static_cast<long>(column)) != ticked.end();
        rule += tick ? "\u252C" : "\u2500";
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
    if (series_.empty()) {
        (void)detail::drawn_values(*this, false, x_axis_, y_axis_);  // throws: nothing to draw
    }
    const bool has_header = !title_.empty() || !y_label_.empty();
    const std::size_t around = (has_header ? 1 : 0) + 2;  // the header, the x axis, its ticks
    const std::vector<std::string> legend =
        legend_lines(legend_entries(*this),
                     note_entries(detail::notes(*this, x_axis_, y_axis_, x_label_)),
                     width,
                     height - around - 1);
    const std::size_t rows = height - around - legend.size();

    const Scale y = y_scale(*this, x_axis_, y_axis_, rows);
    const std::vector<std::string> tick_labels = y_tick_labels(y, rows);
    std::size_t label_columns = 0;
    for (const std::string& label : tick_labels) {
        label_columns = std::max(label_columns, detail::code_points(label));
    }
    const std::size_t columns = width - std::min(width - 2, label_columns + 2);
    const XTicks x = x_ticks(*this, x_axis_, y_axis_, x_label_, columns, label_columns + 2, width);
    const Canvas canvas = painted(*this, x.scale, y, columns, rows);

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
    out += std::string(label_columns + 1, ' ') + "\u2514" +
           horizontal_rule(canvas.columns(), x.columns) + "\n";
    out += trimmed(x.line) + "\n";
    for (const std::string& line : legend) {
        out += trimmed(line) + "\n";
    }
    return out;
}

}  // namespace topos::show
