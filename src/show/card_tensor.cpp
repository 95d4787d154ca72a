// show::card of a Tensor: the describe() header, statistics over the finite
// elements, then the payload: the value alone at rank 0, a table shaded by value
// when small, a histogram of the finite values when large. The markup grows
// with at most 400 cells or 20 bars, never with the element count. A table's
// cells are shaded blue below zero and red above it (see shade()).
#include "core/float_text.hpp"
#include "show/card_parts.hpp"
#include <topos/show/card.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace topos::show {
namespace {

using detail::rounded;
using detail::shortest;
using detail::Statistics;
using detail::statistics;
using detail::type_name;

constexpr std::size_t table_limit = 400;
constexpr std::size_t histogram_bins = 20;
constexpr int histogram_width = 400;
constexpr int histogram_height = 100;
constexpr int bar_width = histogram_width / static_cast<int>(histogram_bins);

std::string stat(std::string_view name, const std::string& value) {
    return "<span class=\"topos-stat\">" + std::string(name) + " <b>" + value + "</b></span>";
}

template <Element T>
std::string statistics_line(const Statistics<T>& stats, std::size_t elements) {
    std::string line = "<p class=\"topos-stats\">" + stat("elements", std::to_string(elements));
    if (stats.finite > 0) {
        line += stat("min", shortest(stats.min)) + stat("max", shortest(stats.max)) +
                stat("mean", rounded(stats.mean));
    } else {
        line += "<span class=\"topos-stat\">no finite elements</span>";
    }
    if (stats.nan > 0) {
        line += stat("NaN", std::to_string(stats.nan));
    }
    if (stats.infinite > 0) {
        line += stat("infinite", std::to_string(stats.infinite));
    }
    return line + "</p>";
}

// Two decimals: an opacity.
std::string two_decimals(double value) {
    std::array<char, 32> buffer{};
    const auto result = topos::detail::to_chars(
        buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed, 2);
    return {buffer.data(), result.ptr};
}

constexpr const char* negative_colour = "33,102,172,";  // blue
constexpr const char* positive_colour = "178,24,43,";   // red

// The shade of a value: blue below zero, red above it, clear at zero, deeper
// with the magnitude. Signed data (min < 0 < max) diverges from 0, not from
// the middle of the range, on one symmetric scale whose ends are set by the
// larger magnitude (matplotlib's CenteredNorm, seaborn's center=0): every
// negative element is blue and every positive one red, and equal magnitudes
// look alike. Data of one sign is shaded from 0 too, not from its minimum, so
// a shade reads as a magnitude: weights in [0.9, 1] look alike, as their
// sizes are, rather than the smallest looking like a zero. Every value but
// zero shows at least a faint tint of its sign's colour.
template <Element T>
std::string shade(T value, const Statistics<T>& stats) {
    const long double magnitude =
        std::max(std::fabs(static_cast<long double>(topos::detail::widen(stats.min))),
                 std::fabs(static_cast<long double>(topos::detail::widen(stats.max))));
    if (topos::detail::widen(value) == 0 || !(magnitude > 0)) {
        return "background:none";
    }
    const auto fraction = static_cast<double>(
        std::fabs(static_cast<long double>(topos::detail::widen(value))) / magnitude);
    return std::string("background:rgba(") +
           (topos::detail::widen(value) < 0 ? negative_colour : positive_colour) +
           two_decimals(0.08 + 0.52 * std::min(fraction, 1.0)) + ")";
}

template <Element T>
std::string value_cell(T value, const Statistics<T>& stats) {
    if (!std::isfinite(topos::detail::widen(value))) {
        return "<td class=\"nonfinite\">" + shortest(value) + "</td>";
    }
    return "<td style=\"" + shade(value, stats) + "\">" + shortest(value) + "</td>";
}

// `rows` by `columns` values, row-major, with their row and column indices.
template <Element T>
std::string value_table(std::span<const T> values,
                        std::size_t rows,
                        std::size_t columns,
                        const Statistics<T>& stats,
                        const std::string& caption) {
    std::string table = "<table class=\"topos-values\">";
    if (!caption.empty()) {
        table += "<caption>" + escape(caption) + "</caption>";
    }
    table += "<tr><th></th>";
    for (std::size_t column = 0; column < columns; ++column) {
        table += "<th>" + std::to_string(column) + "</th>";
    }
    table += "</tr>";
    for (std::size_t row = 0; row < rows; ++row) {
        table += "<tr><th>" + std::to_string(row) + "</th>";
        for (std::size_t column = 0; column < columns; ++column) {
            table += value_cell(values[row * columns + column], stats);
        }
        table += "</tr>";
    }
    return table + "</table>";
}

// The first matrix of a tensor of rank 3 or more: indices 0 on every leading axis.
std::string first_matrix_caption(const Shape& shape) {
    std::string index = "[";
    for (std::size_t axis = 0; axis + 2 < shape.rank(); ++axis) {
        index += "0, ";
    }
    const std::size_t matrices =
        shape.elements() / (shape[shape.rank() - 2] * shape[shape.rank() - 1]);
    return "the first matrix, " + index + ":, :], of " + std::to_string(matrices);
}

template <Element T>
std::string small_payload(const Tensor<T>& tensor, const Statistics<T>& stats) {
    const Shape& shape = tensor.shape();
    if (shape.rank() == 1) {
        return value_table(tensor.data(), 1, shape[0], stats, "");
    }
    const std::size_t rows = shape[shape.rank() - 2];
    const std::size_t columns = shape[shape.rank() - 1];
    const std::string caption = shape.rank() == 2 ? "" : first_matrix_caption(shape);
    return value_table(tensor.data().first(rows * columns), rows, columns, stats, caption);
}

template <Element T>
std::vector<std::size_t> bin_counts(std::span<const T> values, const Statistics<T>& stats) {
    std::vector<std::size_t> counts(histogram_bins, 0);
    const long double width = (static_cast<long double>(topos::detail::widen(stats.max)) -
                               topos::detail::widen(stats.min)) /
                              static_cast<long double>(histogram_bins);
    for (const T value : values) {
        if (!std::isfinite(topos::detail::widen(value))) {
            continue;
        }
        const long double offset =
            static_cast<long double>(topos::detail::widen(value)) - topos::detail::widen(stats.min);
        const std::size_t bin = width > 0 ? static_cast<std::size_t>(offset / width) : 0;
        ++counts[std::min(bin, histogram_bins - 1)];
    }
    return counts;
}

std::string bar(std::size_t bin, std::size_t count, std::size_t tallest, double low, double high) {
    const int height =
        static_cast<int>(std::lround(static_cast<double>(histogram_height) *
                                     static_cast<double>(count) / static_cast<double>(tallest)));
    const int x = static_cast<int>(bin) * bar_width;
    return "<rect class=\"topos-bar\" x=\"" + std::to_string(x) + "\" y=\"" +
           std::to_string(histogram_height - height) + "\" width=\"" +
           std::to_string(bar_width - 1) + "\" height=\"" + std::to_string(height) + "\"><title>" +
           rounded(low) + " to " + rounded(high) + ": " + std::to_string(count) + "</title></rect>";
}

template <Element T>
std::string histogram(const Tensor<T>& tensor, const Statistics<T>& stats) {
    if (stats.finite == 0) {
        return "<p class=\"topos-note\">no finite elements to draw</p>";
    }
    const std::vector<std::size_t> counts = bin_counts(tensor.data(), stats);
    const std::size_t tallest = *std::max_element(counts.begin(), counts.end());
    const double low = static_cast<double>(topos::detail::widen(stats.min));
    const double width =
        (static_cast<double>(topos::detail::widen(stats.max)) - low) / histogram_bins;
    std::string svg = "<svg class=\"topos-histogram\" width=\"" + std::to_string(histogram_width) +
                      "\" height=\"" + std::to_string(histogram_height) + "\" viewBox=\"0 0 " +
                      std::to_string(histogram_width) + " " + std::to_string(histogram_height) +
                      "\" role=\"img\"><title>histogram of the " + std::to_string(stats.finite) +
                      " finite elements in " + std::to_string(histogram_bins) + " bins</title>";
    for (std::size_t bin = 0; bin < histogram_bins; ++bin) {
        const double from = low + width * static_cast<double>(bin);
        svg += bar(bin, counts[bin], tallest, from, from + width);
    }
    svg += "</svg>";
    return "<div class=\"topos-histogram-frame\">" + svg + "<div class=\"topos-range\"><span>" +
           shortest(stats.min) + "</span><span>" + shortest(stats.max) + "</span></div></div>";
}

template <Element T>
std::string scalar(T value) {
    const char* classes =
        std::isfinite(topos::detail::widen(value)) ? "topos-scalar" : "topos-scalar nonfinite";
    return std::string("<p class=\"") + classes + "\">" + shortest(value) + "</p>";
}

template <Element T>
std::string payload(const Tensor<T>& tensor) {
    if (tensor.shape().rank() == 0) {
        return scalar(tensor.data()[0]);
    }
    if (tensor.elements() == 0) {
        return "<p class=\"topos-note\">no elements</p>";
    }
    const Statistics<T> stats = statistics(tensor.data());
    const std::string body =
        tensor.elements() <= table_limit ? small_payload(tensor, stats) : histogram(tensor, stats);
    return statistics_line(stats, tensor.elements()) + body;
}

}  // namespace

template <Element T>
Html card(const Tensor<T>& tensor) {
    const std::string header =
        "Tensor<" + std::string(type_name<T>()) + "> " + tensor.shape().str();
    return Html("<div class=\"topos-card topos-tensor\"><div class=\"topos-card-header\">" +
                escape(header) + "</div>" + payload(tensor) + "</div>");
}

template Html card(const Tensor<float>&);
template Html card(const Tensor<double>&);
template Html card(const Tensor<bf16>&);

}  // namespace topos::show
