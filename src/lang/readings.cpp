// The readings: the program's derivative recorded on a reopened tape, the
// entry over its roots lowered and interpreted, and each stage's own text.
#include <topos/emit/stablehlo.hpp>
#include <topos/lang/readings.hpp>
#include <topos/show/graph.hpp>

#include <array>
#include <sstream>
#include <utility>
#include <vector>

namespace topos::lang {

namespace {

const Statement& statement_named(const Program& program,
                                 const std::string& name,
                                 const std::string& option) {
    if (const Statement* statement = program.find(name)) {
        return *statement;
    }
    std::string names;
    for (const Statement& statement : program.statements()) {
        names += (names.empty() ? "" : ", ") + statement.name;
    }
    throw OptionError("the " + option + " `" + name + "` names no statement; the program names " +
                      names);
}

void check_rank_zero(const Statement& target) {
    if (target.shape.rank() != 0) {
        throw ProgramError(target.line,
                           target.column,
                           "the target `" + target.name + "` is " + target.shape.str() +
                               ", not rank 0; a derivative needs a scalar target: end with a "
                               "rank-0 statement such as `loss = sum(" +
                               target.name + ")`, or name another target");
    }
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        lines.push_back(line);
    }
    return lines;
}

std::string with_newline(std::string text) {
    while (!text.empty() && text.back() == '\n') {
        text.pop_back();
    }
    return text + '\n';
}

std::string spec_text(const Analysis& analysis) {
    std::string text = with_newline(analysis.spec.describe()) + "names:\n";
    for (const Statement& statement : analysis.statements) {
        text += "  line " + std::to_string(statement.line) + ": " + statement.name + " is node " +
                std::to_string(statement.symbol.index()) + ", ";
        if (statement.kind != StatementKind::Expression) {
            const std::string_view kind = name_of(statement.kind);
            text += (kind == "input" ? "an " : "a ") + std::string(kind) + " ";
        }
        text += statement.shape.str() + '\n';
    }
    return text;
}

// The describe lines of the nodes differentiation appended after the program's own.
std::string appended_nodes_text(const Analysis& analysis) {
    const std::size_t first = analysis.spec.nodes().size();
    const std::size_t count = analysis.network.nodes().size();
    if (first >= count) {
        return "differentiation appended no nodes\n";
    }
    const std::string range =
        first + 1 == count ? "node " + std::to_string(first)
                           : "nodes " + std::to_string(first) + " to " + std::to_string(count - 1);
    const std::string describe = analysis.network.describe();
    const std::vector<std::string> lines = lines_of(describe);
    if (lines.size() < count) {  // not one line per node: show the whole table
        return "differentiation appended " + range + " of:\n" + with_newline(describe);
    }
    std::string text = "differentiation appended " + range + ":\n";
    for (std::size_t index = first; index < count; ++index) {
        text += lines[index] + '\n';
    }
    return text;
}

// The statement of each parameter, in the order the gradients were asked for.
std::vector<const Statement*> parameter_statements(const Analysis& analysis) {
    std::vector<const Statement*> parameters;
    for (const auto& gradient : analysis.adjoints.gradients()) {
        for (const Statement& statement : analysis.statements) {
            if (statement.symbol == gradient.first && statement.kind == StatementKind::Parameter) {
                parameters.push_back(&statement);
            }
        }
    }
    return parameters;
}

std::string derivative_text(const Analysis& analysis) {
    const std::string& target = analysis.target.name;
    if (analysis.adjoints.gradients().empty()) {
        return "the program has no parameters: nothing was differentiated, and the plan "
               "computes `" +
               target + "` alone\n";
    }
    std::string text = "`" + target + "` is node " +
                       std::to_string(analysis.target.symbol.index()) + "; " +
                       appended_nodes_text(analysis);
    for (const Statement* parameter : parameter_statements(analysis)) {
        text += "d " + target + " / d " + parameter->name + " is node " +
                std::to_string(analysis.adjoints.of(parameter->symbol).index()) + '\n';
    }
    return text;
}

std::string stablehlo_text(const Plan<float>& plan) {
    try {
        return with_newline(plan.emit_stablehlo());
    } catch (const EmitError& error) {
        return std::string("this plan has no StableHLO form: ") + error.what() + '\n';
    }
}

std::string value_text(const std::string& label, const Tensor<float>& value) {
    return label + " = " + with_newline(value.describe());
}

std::string values_text(const Analysis& analysis) {
    std::string text;
    for (const Statement& statement : analysis.statements) {
        if (analysis.run.readable(statement.symbol)) {
            text += (text.empty() ? "" : "\n") +
                    value_text(statement.name, analysis.run.of(statement.symbol));
        }
    }
    for (const Statement* parameter : parameter_statements(analysis)) {
        text += "\n" + value_text("d " + analysis.target.name + " / d " + parameter->name,
                                  analysis.run.of(analysis.adjoints.of(parameter->symbol)));
    }
    return text;
}

}  // namespace

Analysis analyse(const Program& program, const ReadingOptions& options) {
    const Statement target = options.target.empty()
                                 ? program.statements().back()
                                 : statement_named(program, options.target, "target");
    check_rank_zero(target);
    std::optional<Statement> observed;
    if (!options.observed.empty()) {
        observed = statement_named(program, options.observed, "observed name");
    }
    std::vector<Symbol> parameters;
    for (const Statement& statement : program.statements()) {
        if (statement.kind == StatementKind::Parameter) {
            parameters.push_back(statement.symbol);
        }
    }
    // Without parameters there is nothing to differentiate, and recording the
    // derivative anyway would append adjoints nobody reads.
    Tape<float> tape = program.network().reopen();
    Adjoints<float> adjoints(target.symbol, {});
    if (!parameters.empty()) {
        adjoints = tape.differentiate(tape.value(target.symbol), parameters);
    }
    Network<float> network = std::move(tape).into_network();
    Entry<float> entry = network.entry(adjoints.roots()).numerics(options.numerics);
    if (observed) {
        entry = entry.observe({observed->symbol});
    }
    Plan<float> plan = entry.lower();
    Run<float> run = entry.interpret(network.parameters());
    return {program.network(),
            {program.statements().begin(), program.statements().end()},
            std::move(network),
            std::move(adjoints),
            std::move(entry),
            std::move(plan),
            std::move(run),
            target,
            observed};
}

Readings read(const Analysis& analysis, const ReadingOptions& options) {
    Readings readings;
    readings.spec = spec_text(analysis);
    readings.derivative = derivative_text(analysis);
    readings.plan = with_newline(analysis.plan.describe());
    readings.stablehlo = stablehlo_text(analysis.plan);
    readings.values = values_text(analysis);
    const show::Picture picture = show::graph(
        analysis.plan, {.derived_from = static_cast<std::uint32_t>(analysis.spec.nodes().size())});
    readings.picture = with_newline(picture.dot());
    readings.boxes = picture.nodes();
    if (options.svg && show::Picture::can_lay_out() && picture.nodes() <= options.max_svg_boxes) {
        readings.svg = with_newline(picture.svg());
    }
    readings.recorded = analysis.network.nodes().size();
    readings.scheduled = analysis.plan.nodes().size();
    readings.readable = analysis.entry.declared().size();
    readings.summary = std::to_string(readings.recorded) + " nodes recorded, " +
                       std::to_string(readings.scheduled) + " scheduled, " +
                       std::to_string(readings.readable) + " readable\n";
    return readings;
}

Readings read(const Program& program, const ReadingOptions& options) {
    return read(analyse(program, options), options);
}

namespace {

struct NamedReading {
    std::string_view name;
    std::string_view heading;
    Reading reading;
};

constexpr std::array<NamedReading, 7> named_readings{{
    {"spec", "1. spec: the program's network", Reading::Spec},
    {"derivative", "2. derivative: the nodes differentiation recorded", Reading::Derivative},
    {"plan", "3. plan: the schedule and its liveness", Reading::Plan},
    {"stablehlo", "4. stablehlo: the plan as a StableHLO module", Reading::StableHlo},
    {"values", "5. values: what the interpreter computed", Reading::Values},
    {"picture", "6. picture: the plan as Graphviz DOT", Reading::Picture},
    {"summary", "summary", Reading::Summary},
}};

}  // namespace

std::optional<Reading> reading_named(std::string_view name) {
    for (const NamedReading& named : named_readings) {
        if (named.name == name) {
            return named.reading;
        }
    }
    return std::nullopt;
}

const std::string& text_of(const Readings& readings, Reading reading) {
    switch (reading) {
        case Reading::Spec:
            return readings.spec;
        case Reading::Derivative:
            return readings.derivative;
        case Reading::Plan:
            return readings.plan;
        case Reading::StableHlo:
            return readings.stablehlo;
        case Reading::Values:
            return readings.values;
        case Reading::Picture:
            return readings.picture;
        case Reading::Summary:
            break;
    }
    return readings.summary;
}

std::string render_text(const Readings& readings) {
    std::string text;
    for (const NamedReading& named : named_readings) {
        if (named.reading != Reading::Summary) {
            text += "== " + std::string(named.heading) + "\n\n" + text_of(readings, named.reading) +
                    '\n';
        }
    }
    return text + readings.summary;
}

}  // namespace topos::lang
