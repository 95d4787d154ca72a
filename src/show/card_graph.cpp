// show::card of a Tape, a Network, a Plan and an Entry. Tapes, networks and
// plans are describe() tables turned into HTML tables: one row per node, each
// operand a link to its node's row. Past 200 rows the middle is elided. Every
// card numbers its ids with its own prefix, so that several cards in one
// report never share an id and each links within itself.
#include "show/card_parts.hpp"
#include <topos/show/card.hpp>
#include <topos/show/plot.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace topos::show {
namespace {

using detail::elided_rows;
using detail::header;
using detail::row_shown;
using detail::type_name;

constexpr std::size_t plot_width = 640;
constexpr std::size_t plot_height = 240;

std::atomic<std::uint64_t> cards_made{0};

// "topos-c7-": unique within a process, so within any report it writes.
std::string fresh_prefix() {
    return "topos-c" + std::to_string(cards_made.fetch_add(1, std::memory_order_relaxed)) + "-";
}

// The node indices that get a row: every one, or the first and last 100.
std::vector<bool> rows_present(std::span<const Node> nodes) {
    std::vector<bool> present;
    for (std::size_t position = 0; position < nodes.size(); ++position) {
        const std::uint32_t index = nodes[position].index();
        if (present.size() <= index) {
            present.resize(index + 1, false);
        }
        present[index] = row_shown(position, nodes.size());
    }
    return present;
}

std::string node_id(const std::string& prefix, std::uint32_t index) {
    return prefix + "node-" + std::to_string(index);
}

// The operands as links to their rows (plain text where the row is elided),
// then the attributes as describe() writes them.
std::string operands_cell(const Node& node,
                          const std::vector<bool>& present,
                          const std::string& prefix) {
    std::string cell;
    const std::span<const std::uint32_t> operands = node.operands();
    for (std::size_t i = 0; i < operands.size(); ++i) {
        const std::uint32_t operand = operands[i];
        const std::string number = std::to_string(operand);
        cell += i > 0 ? ", " : "";
        if (operand < present.size() && present[operand]) {
            cell += "<a href=\"#" + node_id(prefix, operand) + "\">" + number + "</a>";
        } else {
            cell += "<span class=\"topos-elided-ref\">" + number + "</span>";
        }
    }
    if (node.attributes().index() != 0) {
        std::ostringstream attributes;
        attributes << node.attributes();
        cell += " <span class=\"topos-attributes\">" + escape(attributes.str()) + "</span>";
    }
    return cell;
}

std::string node_row(const Node& node,
                     const std::vector<bool>& present,
                     const std::string& prefix,
                     const std::string& extra_cell) {
    return "<tr id=\"" + node_id(prefix, node.index()) + "\"><td class=\"topos-index\">" +
           std::to_string(node.index()) + "</td><td class=\"topos-op\">" +
           std::string(name_of(node.opcode())) + "</td><td>" +
           operands_cell(node, present, prefix) + "</td><td class=\"topos-shape\">" +
           node.shape().str() + "</td>" + extra_cell + "</tr>";
}

// One row per node (the middle elided past 200); `extra(position)` is the
// markup of any further cells of the row at that position.
template <class Extra>
std::string node_table(std::span<const Node> nodes,
                       const std::string& prefix,
                       const std::vector<std::string_view>& extra_headings,
                       Extra&& extra) {
    const std::vector<bool> present = rows_present(nodes);
    std::string table =
        "<table class=\"topos-nodes\"><tr><th>node</th><th>opcode</th>"
        "<th>operands</th><th>shape</th>";
    for (const std::string_view heading : extra_headings) {
        table += "<th>" + std::string(heading) + "</th>";
    }
    table += "</tr>";
    table += elided_rows(nodes.size(), 4 + extra_headings.size(), "nodes", [&](std::size_t at) {
        return node_row(nodes[at], present, prefix, extra(at));
    });
    return table + "</table>";
}

// The lines of a describe() after its table of `table_lines` rows.
std::string summary(const std::string& described, std::size_t table_lines) {
    std::istringstream lines(described);
    std::string line;
    std::string markup;
    for (std::size_t number = 0; std::getline(lines, line); ++number) {
        if (number >= table_lines && !line.empty()) {
            markup += "<p class=\"topos-summary\">" + escape(line) + "</p>";
        }
    }
    return markup;
}

std::string graph_card(std::string_view kind,
                       std::string_view type,
                       std::span<const Node> nodes,
                       const std::string& described) {
    const std::string prefix = fresh_prefix();
    const auto no_extra = [](std::size_t) { return std::string(); };
    return "<div class=\"topos-card topos-" + std::string(kind == "Tape" ? "tape" : "network") +
           "\">" + header(kind, type) + node_table(nodes, prefix, {}, no_extra) +
           summary(described, nodes.size()) + "</div>";
}

const char* liveness_class(Liveness::Kind kind) {
    switch (kind) {
        case Liveness::Kind::Freed:
            return "topos-freed";
        case Liveness::Kind::Kept:
            return "topos-kept";
        case Liveness::Kind::Retained:
            return "topos-retained";
        case Liveness::Kind::Releasable:
            return "topos-releasable";
        case Liveness::Kind::Fused:
            return "topos-fused";
    }
    return "";
}

template <Element T>
std::string schedule(const Plan<T>& plan, const std::string& prefix) {
    const std::span<const Liveness> liveness = plan.liveness();
    return node_table(plan.nodes(), prefix, {"liveness"}, [&](std::size_t position) {
        return std::string("<td class=\"") + liveness_class(liveness[position].kind) + "\">" +
               liveness[position].describe() + "</td>";
    });
}

template <Element T>
std::string patterns(const Plan<T>& plan) {
    if (plan.patterns().empty()) {
        return "<p class=\"topos-note\">no patterns elected</p>";
    }
    std::string list = "<ul class=\"topos-patterns\">";
    for (const Pattern& pattern : plan.patterns()) {
        list += "<li>" + escape(pattern.describe()) + "</li>";
    }
    return list + "</ul>";
}

template <Element T>
std::string live_volume_plot(const Plan<T>& plan) {
    if (plan.live_series().empty()) {
        return "";
    }
    return "<div class=\"topos-card-plot\">" +
           live_volume(plan).html(plot_width, plot_height).html() + "</div>";
}

// "node 5 (Sum, [])" for each symbol; "none" for none.
template <Element T>
std::string node_list(const Network<T>& network, const std::vector<Symbol>& symbols) {
    if (symbols.empty()) {
        return "none";
    }
    std::string list;
    for (const Symbol symbol : symbols) {
        const Node& node = network.node(symbol);
        list += list.empty() ? "" : ", ";
        list += "node " + std::to_string(node.index()) + " (" +
                std::string(name_of(node.opcode())) + ", " + node.shape().str() + ")";
    }
    return list;
}

std::string field_row(std::string_view name, const std::string& value) {
    return "<tr><th>" + std::string(name) + "</th><td>" + escape(value) + "</td></tr>";
}

}  // namespace

template <Element T>
Html card(const Tape<T>& tape) {
    return Html(graph_card("Tape", type_name<T>(), tape.nodes(), tape.describe()));
}

template <Element T>
Html card(const Network<T>& network) {
    return Html(graph_card("Network", type_name<T>(), network.nodes(), network.describe()));
}

template <Element T>
Html card(const Plan<T>& plan) {
    const std::string prefix = fresh_prefix();
    return Html("<div class=\"topos-card topos-plan\">" + header("Plan", type_name<T>()) +
                schedule(plan, prefix) +
                "<div class=\"topos-card-section\">elected patterns</div>" + patterns(plan) +
                summary(plan.describe(), plan.nodes().size()) + live_volume_plot(plan) + "</div>");
}

template <Element T>
Html card(const Entry<T>& entry) {
    const std::string posture =
        entry.keeps_backward() ? "backward: runs keep what Run::backward reads" : "forward";
    std::ostringstream numerics;
    numerics << entry.numerics();
    return Html("<div class=\"topos-card topos-entry\">" + header("Entry", type_name<T>()) +
                "<table class=\"topos-fields\">" +
                field_row("roots", node_list(entry.network(), entry.roots())) +
                field_row("observed", node_list(entry.network(), entry.observed())) +
                field_row("numerics", numerics.str()) + field_row("posture", posture) +
                field_row("elects patterns", entry.elects_patterns() ? "yes" : "no") +
                "</table></div>");
}

template Html card(const Tape<float>&);
template Html card(const Tape<double>&);
template Html card(const Tape<bf16>&);
template Html card(const Network<float>&);
template Html card(const Network<double>&);
template Html card(const Network<bf16>&);
template Html card(const Plan<float>&);
template Html card(const Plan<double>&);
template Html card(const Plan<bf16>&);
template Html card(const Entry<float>&);
template Html card(const Entry<double>&);
template Html card(const Entry<bf16>&);

}  // namespace topos::show
