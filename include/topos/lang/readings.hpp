// The six readings of a program: its spec, the derivative recorded from its
// target, the plan over that derivative, the plan's StableHLO, the values the
// interpreter computes, and a picture of the plan; then one summary line,
// `N nodes recorded, M scheduled, K readable`. Each reading is text; together
// they render as text with headings or as one JSON object.
#pragma once

#include <topos/autodiff/adjoints.hpp>
#include <topos/graph/network.hpp>
#include <topos/lang/program.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/run.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topos::lang {

// What to read: the target differentiated (the last statement unless named),
// a statement the plan also keeps readable (none unless named), the numerics,
// and whether the picture is also laid out as SVG (needs Graphviz; skipped
// past max_svg_boxes, as the layout takes seconds at a thousand boxes and
// minutes at a few thousand).
struct ReadingOptions {
    std::string target{};
    std::string observed{};
    Numerics numerics = Numerics::Exact;
    bool svg = false;
    std::size_t max_svg_boxes = 600;
};

// What the readings are read from: the program's own network and statements;
// the network with the target's derivative recorded onto it, the entry over
// the adjoints' roots (and the observed statement), its plan, and the
// interpreter's run of that entry.
struct Analysis {
    Network<float> spec;
    std::vector<Statement> statements;
    Network<float> network;
    Adjoints<float> adjoints;
    Entry<float> entry;
    Plan<float> plan;
    Run<float> run;
    Statement target;
    std::optional<Statement> observed;
};

// Records the derivative, declares the entry, lowers it and runs it. Throws
// OptionError for an option naming no statement, ProgramError (at the target's
// statement) for a target that is not rank 0.
Analysis analyse(const Program& program, const ReadingOptions& options = {});

// The readings, each a text ending in one newline.
struct Readings {
    std::string spec;        // the program's network, then which node each name stands for
    std::string derivative;  // the nodes differentiation appended after the target
    std::string plan;        // the plan's describe(): schedule and liveness
    std::string stablehlo;   // the plan as StableHLO, or why it cannot be written
    std::string values;      // readable named values, then each parameter's gradient
    std::string picture;     // the plan as Graphviz DOT text
    std::string svg;         // the picture laid out, when asked for and possible; else empty
    std::size_t boxes = 0;   // the boxes the picture draws
    std::string summary;     // `N nodes recorded, M scheduled, K readable`
    std::size_t recorded = 0;
    std::size_t scheduled = 0;
    std::size_t readable = 0;
};

// Every reading of `program` (see analyse for what throws).
Readings read(const Program& program, const ReadingOptions& options = {});

// The readings of an analysis.
Readings read(const Analysis& analysis, const ReadingOptions& options = {});

// One reading, by the name the command line uses.
enum class Reading : std::uint8_t {
    Spec,
    Derivative,
    Plan,
    StableHlo,
    Values,
    Picture,
    Summary,
};

// The reading a name (spec, derivative, plan, stablehlo, values, picture,
// summary) stands for, or nothing.
std::optional<Reading> reading_named(std::string_view name);

// The text of one reading.
const std::string& text_of(const Readings& readings, Reading reading);

// Every reading under a heading, in order, then the summary line.
std::string render_text(const Readings& readings);

// One JSON object: each reading a string (svg null when absent), the picture's
// boxes and the three counts as numbers.
std::string render_json(const Readings& readings);

// `text` as a JSON string literal, quotes included.
std::string json_quoted(std::string_view text);

}  // namespace topos::lang
