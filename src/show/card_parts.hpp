// What every card is made of: its header, numbers as a card writes them,
// statistics over a tensor's finite elements, and tables (cells, headings, rows
// whose middle is elided past 200), so that a card's size never grows with
// what it shows.
#pragma once

#include "core/arithmetic.hpp"
#include "core/float_text.hpp"
#include <topos/core/tensor.hpp>
#include <topos/show/html.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace topos::show::detail {

inline constexpr std::size_t elision_threshold = 200;
inline constexpr std::size_t rows_at_each_end = 100;

template <Element T>
constexpr std::string_view type_name() {
    if constexpr (std::is_same_v<T, float>) {
        return "float";
    } else if constexpr (std::is_same_v<T, double>) {
        return "double";
    } else {
        return "bf16";
    }
}

// "Run<float>", "Network<double>": the card's first line.
inline std::string header(std::string_view kind, std::string_view type) {
    return "<div class=\"topos-card-header\">" +
           escape(std::string(kind) + "<" + std::string(type) + ">") + "</div>";
}

// The shortest decimal that reads back as `value` in T (as Tensor::str writes it).
template <Element T>
std::string shortest(T value) {
    if constexpr (std::is_same_v<T, bf16>) {
        return to_string(value);
    } else {
        std::array<char, 64> buffer{};
        const auto result =
            topos::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
        return {buffer.data(), result.ptr};
    }
}

// A derived quantity (a mean, a bin edge): six significant digits.
inline std::string rounded(double value) {
    std::array<char, 64> buffer{};
    const auto result = topos::detail::to_chars(
        buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general, 6);
    return {buffer.data(), result.ptr};
}

// The finite elements' extremes and mean, and how many are NaN or infinite.
template <Element T>
struct Statistics {
    std::size_t finite = 0;
    std::size_t nan = 0;
    std::size_t infinite = 0;
    T min{};
    T max{};
    double mean = 0;

    std::size_t nonfinite() const { return nan + infinite; }
};

template <Element T>
Statistics<T> statistics(std::span<const T> values) {
    Statistics<T> result;
    // long double: a sum of large finite doubles must not overflow to infinity.
    long double sum = 0;
    for (const T value : values) {
        if (std::isnan(topos::detail::widen(value))) {
            ++result.nan;
        } else if (std::isinf(topos::detail::widen(value))) {
            ++result.infinite;
        } else {
            result.min = result.finite == 0 ? value : std::min(result.min, value);
            result.max = result.finite == 0 ? value : std::max(result.max, value);
            sum += topos::detail::widen(value);
            ++result.finite;
        }
    }
    if (result.finite > 0) {
        result.mean = static_cast<double>(sum / static_cast<long double>(result.finite));
    }
    return result;
}

// Whether row `position` of `rows` is shown: all of them up to 200, else the
// first and the last 100.
inline bool row_shown(std::size_t position, std::size_t rows) {
    return rows <= elision_threshold || position < rows_at_each_end ||
           position >= rows - rows_at_each_end;
}

// The rows `row(position)` makes, the elided middle replaced by one row of
// `columns` cells saying how many `what` ("nodes", "rows") it stands for.
template <class Row>
std::string elided_rows(std::size_t rows, std::size_t columns, std::string_view what, Row&& row) {
    std::string markup;
    for (std::size_t position = 0; position < rows; ++position) {
        if (row_shown(position, rows)) {
            markup += row(position);
        } else if (position == rows_at_each_end) {
            markup += "<tr class=\"topos-elided\"><td colspan=\"" + std::to_string(columns) +
                      "\">" + std::to_string(rows - 2 * rows_at_each_end) + " " +
                      std::string(what) + " elided</td></tr>";
        }
    }
    return markup;
}

// A table cell holding `text` (markup already), with a class when given.
inline std::string cell(const std::string& text, std::string_view css_class = "") {
    if (css_class.empty()) {
        return "<td>" + text + "</td>";
    }
    return "<td class=\"" + std::string(css_class) + "\">" + text + "</td>";
}

inline std::string heading_row(std::initializer_list<std::string_view> headings) {
    std::string row = "<tr>";
    for (const std::string_view heading : headings) {
        row += "<th>" + std::string(heading) + "</th>";
    }
    return row + "</tr>";
}

// The rows, the middle elided past 200.
inline std::string table_rows(const std::vector<std::string>& rows, std::size_t columns) {
    return elided_rows(rows.size(), columns, "rows", [&](std::size_t i) { return rows[i]; });
}

// A parameter's extremes and mean as three cells, "-" each when it has no
// finite element.
template <Element T>
std::string statistics_cells(const Tensor<T>& value) {
    const Statistics<T> found = statistics(value.data());
    const bool any = found.finite > 0;
    return cell(any ? shortest(found.min) : "-") + cell(any ? shortest(found.max) : "-") +
           cell(any ? rounded(found.mean) : "-");
}

}  // namespace topos::show::detail
