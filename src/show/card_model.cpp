// show::card of the model layer: a Function (its arguments and compiled plans)
// and a module (its description and named parameters, with their statistics
// when the payloads are given).
#include "show/card_parts.hpp"
#include <topos/core/error.hpp>
#include <topos/show/card.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace topos::show {
namespace {

using detail::cell;
using detail::header;
using detail::heading_row;
using detail::statistics_cells;
using detail::table_rows;
using detail::type_name;

std::string shapes_text(const std::vector<Shape>& shapes) {
    std::string text;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        text += (i > 0 ? ", " : "") + shapes[i].str();
    }
    return text;
}

std::string plural(std::size_t count, std::string_view singular, std::string_view plural) {
    return std::to_string(count) + ' ' + std::string(count == 1 ? singular : plural);
}

// "Mlp" for "Mlp(3 -> 4 -> 2, tanh)\n...": the words before the first parenthesis.
std::string kind_of(const std::string& description) {
    const std::size_t end = description.find_first_of("(\n:");
    const std::string kind = description.substr(0, end);
    return kind.empty() ? "Module" : kind;
}

template <Element T>
const Value<T>& parameter_of(const ModuleReading<T>& module, const NamedParameter& named) {
    const auto found = std::find_if(
        module.parameters.begin(), module.parameters.end(), [&](const Value<T>& value) {
            return value.symbol() == named.symbol;
        });
    if (found == module.parameters.end()) {
        throw ShowError("show::card: the module names node " +
                        std::to_string(named.symbol.index()) + " \"" + named.name +
                        "\", which is not one of its parameters()");
    }
    return *found;
}

}  // namespace

template <Element T>
Html card(const Function<T>& function) {
    const std::vector<CompiledPlan<T>> plans = function.compiled_plans();
    std::vector<std::string> rows;
    rows.reserve(plans.size());
    for (const CompiledPlan<T>& compiled : plans) {
        rows.push_back("<tr>" + cell(compiled.gradients ? "gradients" : "value", "topos-op") +
                       cell(shapes_text(compiled.shapes), "topos-shape") +
                       cell(std::to_string(compiled.plan.nodes().size())) +
                       cell(std::to_string(compiled.plan.patterns().size())) + "</tr>");
    }
    const std::string described = function.describe();
    std::string summary = described.substr(0, described.find('\n'));
    if (summary.ends_with(':')) {
        summary.pop_back();
    }
    const std::string table =
        rows.empty() ? "<p class=\"topos-note\">no plan compiled yet: the first call at new input "
                       "shapes compiles one</p>"
                     : "<table class=\"topos-nodes\">" +
                           heading_row({"plan", "input shapes", "nodes scheduled", "patterns"}) +
                           table_rows(rows, 4) + "</table>";
    return Html("<div class=\"topos-card topos-function\">" + header("Function", type_name<T>()) +
                "<p class=\"topos-summary\">" + escape(summary) + "</p>" + table + "</div>");
}

template <Element T>
Html module_card(const ModuleReading<T>& module) {
    std::vector<std::string> rows;
    rows.reserve(module.names.size());
    std::size_t elements = 0;
    for (const NamedParameter& named : module.names) {
        const Value<T>& parameter = parameter_of(module, named);
        elements += parameter.shape().elements();
        std::string row = "<tr>" + cell(escape(named.name), "topos-name") +
                          cell(std::to_string(parameter.index()), "topos-index") +
                          cell(parameter.shape().str(), "topos-shape") +
                          cell(std::to_string(parameter.shape().elements()));
        if (module.values != nullptr) {
            row += statistics_cells(module.values->of(named.symbol));
        }
        rows.push_back(row + "</tr>");
    }
    const std::size_t columns = module.values != nullptr ? 7 : 4;
    const std::string headings =
        module.values != nullptr
            ? heading_row({"name", "node", "shape", "elements", "min", "max", "mean"})
            : heading_row({"name", "node", "shape", "elements"});
    const std::string table = rows.empty() ? "<p class=\"topos-note\">no parameters</p>"
                                           : "<table class=\"topos-nodes\">" + headings +
                                                 table_rows(rows, columns) + "</table>";
    return Html("<div class=\"topos-card topos-module\">" +
                header(kind_of(module.description), type_name<T>()) + "<pre class=\"topos-text\">" +
                escape(module.description) + "</pre>" + table + "<p class=\"topos-summary\">" +
                plural(module.names.size(), "parameter", "parameters") + ", " +
                plural(elements, "element", "elements") + "</p></div>");
}

template Html card(const Function<float>&);
template Html card(const Function<double>&);
template Html card(const Function<bf16>&);
template Html module_card(const ModuleReading<float>&);
template Html module_card(const ModuleReading<double>&);
template Html module_card(const ModuleReading<bf16>&);

}  // namespace topos::show
