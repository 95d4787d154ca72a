// show::card of a Run, a Field, a Parameters table and an Adjoints record: one
// row per value, each tensor summarised on one line (its extremes and first
// elements), so that a card stays small whatever the payloads weigh.
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

constexpr std::size_t elision_threshold = 200;
constexpr std::size_t rows_at_each_end = 100;
constexpr std::size_t leading_values = 4;

template <Element T>
constexpr std::string_view type_name() {
    return std::is_same_v<T, float> ? "float" : "double";
}

std::string header(std::string_view kind, std::string_view type) {
    return "<div class=\"topos-card-header\">" +
           escape(std::string(kind) + "<" + std::string(type) + ">") + "</div>";
}

// The shortest decimal that reads back as `value` in T.
template <Element T>
std::string shortest(T value) {
    std::array<char, 64> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return {buffer.data(), result.ptr};
}

// A mean: six significant digits.
std::string rounded(double value) {
    std::array<char, 64> buffer{};
    const auto result = std::to_chars(
        buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general, 6);
    return {buffer.data(), result.ptr};
}

// The finite elements' extremes and mean, and how many are not finite.
template <Element T>
struct Extremes {
    std::size_t finite = 0;
    std::size_t nonfinite = 0;
    T min = 0;
    T max = 0;
    double mean = 0;
};

template <Element T>
Extremes<T> extremes(std::span<const T> values) {
    Extremes<T> result;
    long double sum = 0;
    for (const T value : values) {
        if (!std::isfinite(value)) {
            ++result.nonfinite;
            continue;
        }
        result.min = result.finite == 0 ? value : std::min(result.min, value);
        result.max = result.finite == 0 ? value : std::max(result.max, value);
        sum += value;
        ++result.finite;
    }
    if (result.finite > 0) {
        result.mean = static_cast<double>(sum / static_cast<long double>(result.finite));
    }
    return result;
}

std::string leading(const std::string& text, std::size_t shown, std::size_t elements) {
    return "[" + text + (shown < elements ? ", \xE2\x80\xA6]" : "]");
}

// One line: "min -0.25 max 0.5 [0.5, -0.25, 0.25, 0.4]", the value alone at rank 0.
template <Element T>
std::string summary(const Tensor<T>& tensor) {
    if (tensor.shape().rank() == 0) {
        return shortest(tensor.data()[0]);
    }
    if (tensor.elements() == 0) {
        return "no elements";
    }
    const Extremes<T> found = extremes(tensor.data());
    std::string line;
    if (found.finite > 0) {
        line = "min " + shortest(found.min) + " max " + shortest(found.max) + " ";
    }
    if (found.nonfinite > 0) {
        line += std::to_string(found.nonfinite) + " not finite ";
    }
    const std::size_t shown = std::min(leading_values, tensor.elements());
    std::string values;
    for (std::size_t i = 0; i < shown; ++i) {
        values += (i > 0 ? ", " : "") + shortest(tensor.data()[i]);
    }
    return line + leading(values, shown, tensor.elements());
}

std::string cell(const std::string& text, std::string_view css_class = "") {
    if (css_class.empty()) {
        return "<td>" + text + "</td>";
    }
    return "<td class=\"" + std::string(css_class) + "\">" + text + "</td>";
}

std::string heading_row(std::initializer_list<std::string_view> headings) {
    std::string row = "<tr>";
    for (const std::string_view heading : headings) {
        row += "<th>" + std::string(heading) + "</th>";
    }
    return row + "</tr>";
}

// The rows, the middle replaced by one row saying how many are elided past 200.
std::string elided_rows(const std::vector<std::string>& rows, std::size_t columns) {
    std::string markup;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows.size() <= elision_threshold || i < rows_at_each_end ||
            i >= rows.size() - rows_at_each_end) {
            markup += rows[i];
        } else if (i == rows_at_each_end) {
            markup += "<tr class=\"topos-elided\"><td colspan=\"" + std::to_string(columns) +
                      "\">" + std::to_string(rows.size() - 2 * rows_at_each_end) +
                      " rows elided</td></tr>";
        }
    }
    return markup;
}

// A row per node of `network` that `wanted` accepts: index, opcode, shape and
// the summary of the tensor `value` gives for it.
template <Element T, class Wanted, class Value>
std::string value_table(const Network<T>& network,
                        std::string_view value_heading,
                        Wanted&& wanted,
                        Value&& value) {
    std::vector<std::string> rows;
    for (const Node& node : network.nodes()) {
        if (wanted(node.symbol())) {
            rows.push_back("<tr>" + cell(std::to_string(node.index()), "topos-index") +
                           cell(std::string(name_of(node.opcode())), "topos-op") +
                           cell(node.shape().str(), "topos-shape") +
                           cell(escape(summary(value(node.symbol()))), "topos-summary-cell") +
                           "</tr>");
        }
    }
    if (rows.empty()) {
        return "<p class=\"topos-note\">none</p>";
    }
    return "<table class=\"topos-nodes\">" +
           heading_row({"node", "opcode", "shape", value_heading}) + elided_rows(rows, 4) +
           "</table>";
}

template <Element T>
std::string parameter_row(std::size_t slot, Symbol symbol, const Tensor<T>& value) {
    const Extremes<T> found = extremes(value.data());
    const bool any = found.finite > 0;
    return "<tr>" + cell(std::to_string(slot), "topos-index") +
           cell(std::to_string(symbol.index()), "topos-index") +
           cell(value.shape().str(), "topos-shape") + cell(any ? shortest(found.min) : "-") +
           cell(any ? shortest(found.max) : "-") + cell(any ? rounded(found.mean) : "-") + "</tr>";
}

std::string node_name(Symbol symbol) {
    return "node " + std::to_string(symbol.index());
}

}  // namespace

template <Element T>
Html card(const Run<T>& run) {
    const auto readable = [&](Symbol symbol) { return run.readable(symbol); };
    const auto value = [&](Symbol symbol) -> const Tensor<T>& { return run.of(symbol); };
    return Html("<div class=\"topos-card topos-run\">" + header("Run", type_name<T>()) +
                value_table(run.network(), "value", readable, value) + "</div>");
}

template <Element T>
Html card(const Field<T>& field) {
    const auto reached = [&](Symbol symbol) { return field.reached(symbol); };
    const auto adjoint = [&](Symbol symbol) { return field.of(symbol); };
    return Html("<div class=\"topos-card topos-field\">" + header("Field", type_name<T>()) +
                value_table(field.network(), "adjoint", reached, adjoint) + "</div>");
}

template <Element T>
Html card(const Parameters<T>& parameters) {
    std::vector<std::string> rows;
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        rows.push_back(parameter_row(slot, parameters.symbols()[slot], parameters.values()[slot]));
    }
    const std::string table =
        rows.empty() ? "<p class=\"topos-note\">no parameters</p>"
                     : "<table class=\"topos-nodes\">" +
                           heading_row({"slot", "node", "shape", "min", "max", "mean"}) +
                           elided_rows(rows, 6) + "</table>";
    return Html("<div class=\"topos-card topos-parameters\">" +
                header("Parameters", type_name<T>()) + table + "</div>");
}

template <Element T>
Html card(const Adjoints<T>& adjoints) {
    std::vector<std::string> rows;
    for (const auto& [value, gradient] : adjoints.gradients()) {
        rows.push_back("<tr>" + cell(node_name(value)) + cell(node_name(gradient)) + "</tr>");
    }
    return Html("<div class=\"topos-card topos-adjoints\">" + header("Adjoints", type_name<T>()) +
                "<p class=\"topos-summary\">target: " + node_name(adjoints.target()) + "</p>" +
                "<table class=\"topos-nodes\">" + heading_row({"value", "gradient"}) +
                elided_rows(rows, 2) + "</table></div>");
}

template Html card(const Run<float>&);
template Html card(const Run<double>&);
template Html card(const Field<float>&);
template Html card(const Field<double>&);
template Html card(const Parameters<float>&);
template Html card(const Parameters<double>&);
template Html card(const Adjoints<float>&);
template Html card(const Adjoints<double>&);

}  // namespace topos::show
