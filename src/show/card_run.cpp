// show::card of a Run, a Field, a Parameters table (named or not) and an Adjoints record: one
// row per value, each tensor summarised on one line (its extremes and first
// elements), so that a card stays small whatever the payloads weigh.
#include "show/card_parts.hpp"
#include <topos/core/error.hpp>
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

using detail::cell;
using detail::header;
using detail::heading_row;
using detail::rounded;
using detail::shortest;
using detail::Statistics;
using detail::statistics;
using detail::statistics_cells;
using detail::table_rows;
using detail::type_name;

constexpr std::size_t leading_values = 4;

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
    const Statistics<T> found = statistics(tensor.data());
    std::string line;
    if (found.finite > 0) {
        line = "min " + shortest(found.min) + " max " + shortest(found.max) + " ";
    }
    if (found.nonfinite() > 0) {
        line += std::to_string(found.nonfinite()) + " not finite ";
    }
    const std::size_t shown = std::min(leading_values, tensor.elements());
    std::string values;
    for (std::size_t i = 0; i < shown; ++i) {
        values += (i > 0 ? ", " : "") + shortest(tensor.data()[i]);
    }
    return line + leading(values, shown, tensor.elements());
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
           heading_row({"node", "opcode", "shape", value_heading}) + table_rows(rows, 4) +
           "</table>";
}

// A row per slot: its index, its name when `names` gives one, its node, its
// shape and its statistics.
template <Element T>
std::string parameters_card(const Parameters<T>& parameters,
                            const std::vector<NamedParameter>* names) {
    std::vector<std::string> rows;
    for (std::size_t slot = 0; slot < parameters.size(); ++slot) {
        const Symbol symbol = parameters.symbols()[slot];
        std::string row = "<tr>" + cell(std::to_string(slot), "topos-index");
        if (names != nullptr) {
            const auto named = std::find_if(names->begin(), names->end(), [&](const auto& each) {
                return each.symbol == symbol;
            });
            row += cell(named == names->end() ? "-" : escape(named->name), "topos-name");
        }
        rows.push_back(row + cell(std::to_string(symbol.index()), "topos-index") +
                       cell(parameters.values()[slot].shape().str(), "topos-shape") +
                       statistics_cells(parameters.values()[slot]) + "</tr>");
    }
    const std::string headings =
        names != nullptr ? heading_row({"slot", "name", "node", "shape", "min", "max", "mean"})
                         : heading_row({"slot", "node", "shape", "min", "max", "mean"});
    const std::string table = rows.empty() ? "<p class=\"topos-note\">no parameters</p>"
                                           : "<table class=\"topos-nodes\">" + headings +
                                                 table_rows(rows, names ? 7 : 6) + "</table>";
    return "<div class=\"topos-card topos-parameters\">" + header("Parameters", type_name<T>()) +
           table + "</div>";
}

// Throws ShowError for a name whose symbol is not a slot of `parameters`.
template <Element T>
void check_names(const Parameters<T>& parameters, const std::vector<NamedParameter>& names) {
    for (const NamedParameter& named : names) {
        const auto symbols = parameters.symbols();
        if (std::find(symbols.begin(), symbols.end(), named.symbol) == symbols.end()) {
            throw ShowError("show::card: the name \"" + named.name + "\" is given to node " +
                            std::to_string(named.symbol.index()) +
                            ", which is not a parameter of these Parameters; pass the "
                            "named_parameters() of the model they were made for");
        }
    }
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
    return Html(parameters_card(parameters, nullptr));
}

template <Element T>
Html card(const Parameters<T>& parameters, const std::vector<NamedParameter>& names) {
    check_names(parameters, names);
    return Html(parameters_card(parameters, &names));
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
                table_rows(rows, 2) + "</table></div>");
}

template Html card(const Run<float>&);
template Html card(const Run<double>&);
template Html card(const Run<bf16>&);
template Html card(const Field<float>&);
template Html card(const Field<double>&);
template Html card(const Field<bf16>&);
template Html card(const Parameters<float>&);
template Html card(const Parameters<double>&);
template Html card(const Parameters<bf16>&);
template Html card(const Parameters<float>&, const std::vector<NamedParameter>&);
template Html card(const Parameters<double>&, const std::vector<NamedParameter>&);
template Html card(const Parameters<bf16>&, const std::vector<NamedParameter>&);
template Html card(const Adjoints<float>&);
template Html card(const Adjoints<double>&);
template Html card(const Adjoints<bf16>&);

}  // namespace topos::show
